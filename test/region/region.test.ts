import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { createStaff, uniqueName } from '../helpers/platform-fixtures.js';
import { openStore, type Store } from '../../src/platform/store/index.js';
import { RegionResponse, type Region } from '../../src/modules/region/region.schemas.js';
import { Envelope, PageInfo } from '../../src/platform/http/schemas.js';
import fastJson from 'fast-json-stringify';
import { testStorePrefix } from '../helpers/store-prefix.js';
import { createMember, createMerchant, createShop, uniq } from '../helpers/factories.js';

const M = '/manage-api/region';
const LIST = '/open-api/region/queryRegionList';

type TreeNode = Region & { children: TreeNode[] };

let testDb: TestDb;
let t: TestApp;
let token: string;
let readerToken: string;
let noRoleToken: string;

beforeAll(async () => {
  testDb = await openTestDatabase();
  t = await createTestApp({}, { db: testDb });
  token = (await t.loginStaff()).accessToken;
  const reader = await createStaff(t.db, { permissions: ['region:read'] });
  readerToken = (await t.loginStaff(reader.username, reader.password)).accessToken;
  const noRole = await createStaff(t.db, { permissions: [] });
  noRoleToken = (await t.loginStaff(noRole.username, noRole.password)).accessToken;
});
afterAll(async () => {
  await t?.close();
  await testDb?.close();
});

const add = async (body: Record<string, unknown>, tok = token) => t.post(`${M}/addRegion`, body, tok);
async function addOk(body: Record<string, unknown>): Promise<Region> {
  const res = await add(body);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}
const get = (id: number, tok = token) => t.post(`${M}/getRegion`, { id }, tok);
const tree = async (app = t, tok = token): Promise<TreeNode[]> => {
  const res = await app.post(`${M}/queryRegionTree`, {}, tok);
  expect(res.body.errcode).toBe(0);
  return res.body.data;
};
const list = async (filter: Record<string, unknown>, app = t): Promise<Region[]> => {
  const res = await app.post(LIST, filter, token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
};
function findInTree(nodes: TreeNode[], id: number): TreeNode | undefined {
  for (const n of nodes) {
    if (n.id === id) return n;
    const hit = findInTree(n.children, id);
    if (hit) return hit;
  }
  return undefined;
}

describe('the seeded dictionary', () => {
  it('holds the 34 provincial divisions', async () => {
    const provinces = (await list({ levelType: 1, parentId: 0 })).filter((r) => r.id < 1_000_000);
    expect(provinces).toHaveLength(34);
    expect(provinces.map((p) => p.name)).toEqual(
      expect.arrayContaining(['北京市', '江苏省', '香港特别行政区', '台湾省']),
    );
  });

  it('carries 江苏省 → 南京市 → 玄武区 with short names, pinyin, merger names and city codes', async () => {
    const nodes = await tree();
    const js = nodes.find((n) => n.id === 320000)!;
    expect(js).toMatchObject({
      name: '江苏省',
      parentId: 0,
      levelType: 1,
      shortName: '江苏',
      pinYin: 'Jiangsu',
      lng: null,
      lat: null,
    });
    const nj = js.children.find((n) => n.id === 320100)!;
    expect(nj).toMatchObject({
      name: '南京市',
      parentId: 320000,
      levelType: 2,
      shortName: '南京',
      pinYin: 'Nanjing',
      cityCode: '025',
      mergerName: '江苏省,南京市',
    });
    const xw = nj.children.find((n) => n.id === 320102)!;
    expect(xw).toEqual({
      id: 320102,
      name: '玄武区',
      parentId: 320100,
      shortName: '玄武',
      levelType: 3,
      cityCode: '025',
      zipCode: null,
      mergerName: '江苏省,南京市,玄武区',
      lng: null,
      lat: null,
      pinYin: 'Xuanwu',
      children: [],
    });
  });
});

describe('addRegion', () => {
  it('adds a region and answers it', async () => {
    const r = await addOk({
      name: ' 测试省 ',
      levelType: 1,
      shortName: '测试',
      cityCode: '0999',
      zipCode: '999000',
      mergerName: '测试省',
      lng: 118.796877,
      lat: 32.060255,
      pinYin: 'Ceshi',
    });
    expect(r.id).toBeGreaterThanOrEqual(1_000_000);
    expect(r).toMatchObject({
      name: '测试省',
      parentId: 0,
      levelType: 1,
      shortName: '测试',
      cityCode: '0999',
      zipCode: '999000',
      lng: 118.796877,
      lat: 32.060255,
      pinYin: 'Ceshi',
    });
    expect((await get(r.id)).body.data).toEqual(r);
  });

  it('adds under an existing parent', async () => {
    const child = await addOk({ name: '测试区', levelType: 3, parentId: 320100 });
    expect(child.parentId).toBe(320100);
  });

  it('refuses a missing name or levelType, a bad value, no token, no permission and an unknown parent', async () => {
    expect((await add({ levelType: 1 })).body).toEqual({ errcode: 400, errmsg: 'name is required' });
    expect((await add({ name: 'x' })).body).toEqual({ errcode: 400, errmsg: 'levelType is required' });
    expect((await add({ name: 'x', levelType: 9 })).body).toEqual({
      errcode: 400,
      errmsg: 'levelType is invalid: must be between 0 and 5',
    });
    expect((await add({ name: 'x'.repeat(65), levelType: 1 })).body.errmsg).toMatch(/^name is invalid/);
    expect((await add({ name: 'x', levelType: 1, parentId: -1 })).body.errmsg).toMatch(/^parentId is invalid/);
    expect((await add({ name: 'x', levelType: 1 }, '')).body.errcode).toBe(401);
    expect((await add({ name: 'x', levelType: 1 }, readerToken)).body.errcode).toBe(403);
    expect((await add({ name: 'x', levelType: 2, parentId: 999_999_999 })).body).toEqual({
      errcode: 404,
      errmsg: 'parent region not found',
    });
  });
});

describe('getRegion', () => {
  it('answers one region, to a reader too', async () => {
    expect((await get(320100, readerToken)).body.data.name).toBe('南京市');
  });

  it('refuses an unknown id (404), a missing id and no token', async () => {
    expect((await get(999_999_999)).body).toEqual({ errcode: 404, errmsg: 'region not found' });
    expect((await t.post(`${M}/getRegion`, {}, token)).body).toEqual({ errcode: 400, errmsg: 'id is required' });
    expect((await t.post(`${M}/getRegion`, { id: 'abc' }, token)).body.errcode).toBe(400);
    expect((await get(320100, '')).body.errcode).toBe(401);
    expect((await get(320100, noRoleToken)).body.errcode).toBe(403);
  });
});

describe('updateRegion', () => {
  it('changes every field given', async () => {
    const r = await addOk({ name: 'before', levelType: 2, parentId: 320000, shortName: 'b', pinYin: 'Before' });
    const res = await t.post(
      `${M}/updateRegion`,
      {
        id: r.id,
        name: 'after',
        levelType: 3,
        parentId: 320100,
        shortName: 'a',
        cityCode: '025',
        zipCode: '210000',
        mergerName: '江苏省,南京市,after',
        lng: 118.5,
        lat: 32.5,
        pinYin: 'After',
      },
      token,
    );
    expect(res.body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await get(r.id)).body.data).toEqual({
      id: r.id,
      name: 'after',
      parentId: 320100,
      shortName: 'a',
      levelType: 3,
      cityCode: '025',
      zipCode: '210000',
      mergerName: '江苏省,南京市,after',
      lng: 118.5,
      lat: 32.5,
      pinYin: 'After',
    });
  });

  it('keeps the parent and the optional fields that are absent or null, and clears a text given as ""', async () => {
    const full = {
      shortName: 'QA',
      cityCode: '0571',
      zipCode: '310000',
      mergerName: '浙江省,杭州市,QA区',
      lng: 120.1,
      lat: 30.2,
      pinYin: 'Qa',
    };
    const r = await addOk({ name: 'QA区', levelType: 3, parentId: 320100, ...full });
    // The QA report's rename: no parentId, some optional fields.
    expect(
      (await t.post(`${M}/updateRegion`, { id: r.id, name: 'QA区改', levelType: 3, cityCode: '025' }, token)).body
        .errcode,
    ).toBe(0);
    expect((await get(r.id)).body.data).toEqual({ ...r, ...full, name: 'QA区改', cityCode: '025' });
    // null keeps too; "" clears a text.
    const res = await t.post(
      `${M}/updateRegion`,
      { id: r.id, name: 'QA区改', levelType: 3, parentId: null, shortName: null, lng: null, zipCode: '', pinYin: ' ' },
      token,
    );
    expect(res.body.errcode).toBe(0);
    expect((await get(r.id)).body.data).toEqual({
      ...r,
      ...full,
      name: 'QA区改',
      cityCode: '025',
      zipCode: null,
      pinYin: null,
    });
    // Still under its city in the (re-read) tree, not a new province.
    const nodes = await tree();
    expect(nodes.some((n) => n.id === r.id)).toBe(false);
    expect(findInTree(nodes, 320100)!.children.map((c) => c.id)).toContain(r.id);
  });

  it('refuses moving a region under itself or its own descendant (409), and an unknown parent', async () => {
    const a = await addOk({ name: 'cycle a', levelType: 1 });
    const b = await addOk({ name: 'cycle b', levelType: 2, parentId: a.id });
    const c = await addOk({ name: 'cycle c', levelType: 3, parentId: b.id });
    const update = (body: Record<string, unknown>) =>
      t.post(`${M}/updateRegion`, { id: a.id, name: 'cycle a', levelType: 1, ...body }, token);
    expect((await update({ parentId: c.id })).body.errcode).toBe(409);
    expect((await update({ parentId: a.id })).body.errcode).toBe(409);
    expect((await update({ parentId: 999_999_999 })).body).toEqual({ errcode: 404, errmsg: 'parent region not found' });
    expect((await get(a.id)).body.data.parentId).toBe(0);
  });

  it('refuses an unknown id, missing fields, no token and no permission', async () => {
    const up = (body: Record<string, unknown>, tok = token) => t.post(`${M}/updateRegion`, body, tok);
    expect((await up({ id: 999_999_999, name: 'x', levelType: 1 })).body).toEqual({
      errcode: 404,
      errmsg: 'region not found',
    });
    expect((await up({ name: 'x', levelType: 1 })).body).toEqual({ errcode: 400, errmsg: 'id is required' });
    expect((await up({ id: 320000, levelType: 1 })).body).toEqual({ errcode: 400, errmsg: 'name is required' });
    expect((await up({ id: 320000, name: 'x' })).body).toEqual({ errcode: 400, errmsg: 'levelType is required' });
    expect((await up({ id: 320000, name: 'x', levelType: 1 }, '')).body.errcode).toBe(401);
    expect((await up({ id: 320000, name: 'x', levelType: 1 }, readerToken)).body.errcode).toBe(403);
    expect((await get(320000)).body.data.name).toBe('江苏省');
  });
});

describe('deleteRegion', () => {
  it('deletes a leaf', async () => {
    const r = await addOk({ name: 'to delete', levelType: 1 });
    expect((await t.post(`${M}/deleteRegion`, { id: r.id }, token)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await get(r.id)).body.errcode).toBe(404);
  });

  it('refuses a region with children (409), an unknown id, no token and no permission', async () => {
    const del = (id: number, tok = token) => t.post(`${M}/deleteRegion`, { id }, tok);
    expect((await del(320100)).body.errcode).toBe(409);
    expect((await get(320100)).body.errcode).toBe(0);
    expect((await del(999_999_999)).body.errcode).toBe(404);
    expect((await t.post(`${M}/deleteRegion`, {}, token)).body).toEqual({ errcode: 400, errmsg: 'id is required' });
    const leaf = await addOk({ name: 'protected leaf', levelType: 1 });
    expect((await del(leaf.id, '')).body.errcode).toBe(401);
    expect((await del(leaf.id, readerToken)).body.errcode).toBe(403);
    expect((await get(leaf.id)).body.errcode).toBe(0);
  });
});

describe('deleteRegion of a region still in use', () => {
  it('refuses a region a shop, a hotel or a member names (409, naming them) and deletes it once none does', async () => {
    const del = (id: number) => t.post(`${M}/deleteRegion`, { id }, token);
    const district = await addOk({ name: '引用区', levelType: 3, parentId: 320100 });
    const merchantId = await createMerchant(t.db);
    const shop = await createShop(t.db, { merchant_id: merchantId, district_id: String(district.id) });
    // Written directly: the hotel module has no operation or function that adds or removes a hotel.
    const hotel = (
      await t.db
        .insertInto('hotel_info')
        .values({
          merchant_id: merchantId,
          shop_id: shop,
          name: `Hotel ${uniq()}`,
          city_id: String(district.id),
          images: [],
          tags: [],
          location_tags: [],
          highlights: [],
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    const members = [
      await createMember(t.db, { area_id: district.id }),
      await createMember(t.db, { area_id: district.id }),
    ];

    expect((await del(district.id)).body).toEqual({
      errcode: 409,
      errmsg: `the region is still referenced by 1 shop (id ${shop}), 1 hotel (id ${hotel}) and 2 members (ids ${members.join(', ')}): remove or move those first`,
    });
    expect((await get(district.id)).body.data).toEqual(district);

    // Logically deleted records do not hold it; a living one still does.
    await t.db.updateTable('hotel_info').set({ is_deleted: true }).where('id', '=', hotel).execute();
    expect((await t.post('/manage-api/shop/deleteShop', { id: shop }, token)).body).toEqual({
      errcode: 0,
      errmsg: 'success',
    });
    // Written directly: no operation deletes a member or moves one to another area.
    await t.db.updateTable('member').set({ is_deleted: true }).where('id', '=', members[0]).execute();
    expect((await del(district.id)).body.errmsg).toBe(
      `the region is still referenced by 1 member (id ${members[1]}): remove or move those first`,
    );
    await t.db.updateTable('member').set({ area_id: 320102 }).where('id', '=', members[1]).execute();
    expect((await del(district.id)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await get(district.id)).body.errcode).toBe(404);
  });

  it('refuses a region a shop names as its province or city', async () => {
    const province = await addOk({ name: '引用省', levelType: 1 });
    const city = await addOk({ name: '引用市', levelType: 2 });
    const shopA = await createShop(t.db, { province_id: String(province.id) });
    const shopB = await createShop(t.db, { city_id: String(city.id) });
    expect((await t.post(`${M}/deleteRegion`, { id: province.id }, token)).body.errmsg).toBe(
      `the region is still referenced by 1 shop (id ${shopA}): remove or move those first`,
    );
    expect((await t.post(`${M}/deleteRegion`, { id: city.id }, token)).body.errmsg).toBe(
      `the region is still referenced by 1 shop (id ${shopB}): remove or move those first`,
    );
  });
});

describe('queryRegionList and queryRegionPage filters', () => {
  it('match keywords over name, shortName and pinYin ignoring case', async () => {
    for (const keywords of ['nanjing', 'NANJING', ' Nanjing ']) {
      const names = (await list({ keywords })).map((r) => r.name);
      expect(names).toContain('南京市');
    }
    expect((await list({ keywords: '南京' })).map((r) => r.id)).toContain(320100);
    const name = uniqueName('KwShort');
    const r = await addOk({ name: '关键词地区', shortName: name, levelType: 1 });
    expect((await list({ keywords: name.toLowerCase() })).map((x) => x.id)).toEqual([r.id]);
  });

  it('match idList and exact fields', async () => {
    expect((await list({ idList: [320102, 320100, 110000] })).map((r) => r.id)).toEqual([110000, 320100, 320102]);
    const nanjingDistricts = await list({ parentId: 320100, levelType: 3 });
    expect(nanjingDistricts.map((r) => r.name)).toEqual(expect.arrayContaining(['玄武区', '秦淮区', '鼓楼区']));
    expect(nanjingDistricts.every((r) => r.parentId === 320100 && r.levelType === 3)).toBe(true);
    expect(await list({ parentId: 320100, levelType: 2 })).toEqual([]);
    expect((await list({ name: '南京市' })).map((r) => r.id)).toEqual([320100]);
    expect((await list({ cityCode: '025', levelType: 2 })).map((r) => r.id)).toEqual([320100]);
    expect((await list({ keywords: 'xuanwu', parentId: 320100 })).map((r) => r.id)).toEqual([320102]);
  });

  it('treat explicit nulls as absent filters (not as 0)', async () => {
    const all = await list({ parentId: null, levelType: null, keywords: null, idList: null, name: null });
    expect(all.length).toBeGreaterThan(3000);
    const page = await t.post(
      `${M}/queryRegionPage`,
      { parentId: null, levelType: null, pageNum: null, pageSize: null },
      token,
    );
    expect(page.body.data.total).toBe(all.length);
    expect(page.body.data.list).toHaveLength(10);
  });

  it('page the same filters', async () => {
    const res = await t.post(`${M}/queryRegionPage`, { parentId: 320100, pageSize: 5, pageNum: 1 }, readerToken);
    expect(res.body.errcode).toBe(0);
    const all = await list({ parentId: 320100 });
    expect(res.body.data.total).toBe(all.length);
    expect(res.body.data.list).toEqual(all.slice(0, 5));
    const second = await t.post(`${M}/queryRegionPage`, { parentId: 320100, pageSize: 5, pageNum: 2 }, token);
    expect(second.body.data.list).toEqual(all.slice(5, 10));
  });

  it('page every kind of filter as the list filters it, whether the page is a slice of one lookup or a scan of it', async () => {
    const filters = [
      { levelType: 2 },
      { parentId: 320000 },
      { parentId: 320000, levelType: 2 },
      { parentId: 320000, levelType: 3 },
      { parentId: 320100, keywords: 'qu' },
      { levelType: 1, name: '江苏省' },
      { idList: [320102, 110000, 320100] },
      { idList: [320102, 110000, 320100], levelType: 3 },
      { keywords: '  ' },
      { parentId: 999999999 },
    ];
    for (const filter of filters) {
      const all = await list(filter);
      for (const [pageNum, pageSize] of [
        [1, 10],
        [3, 7],
        [1000, 5],
      ]) {
        const page = await t.post(`${M}/queryRegionPage`, { ...filter, pageNum, pageSize }, token);
        expect([filter, pageNum, page.body.data]).toEqual([
          filter,
          pageNum,
          { list: all.slice((pageNum - 1) * pageSize, pageNum * pageSize), total: all.length },
        ]);
      }
    }
  });

  it("answer the bytes the response schema's serializer writes, though each page is serialised once and kept", async () => {
    const serialize = fastJson(Envelope(PageInfo(RegionResponse)) as object);
    const filters = [
      { levelType: 2 },
      { parentId: 320100, keywords: 'qu' },
      { idList: [320102, 110000] },
      { parentId: 999999999 },
      { levelType: 3 },
    ];
    for (const filter of filters) {
      for (let round = 0; round < 2; round++) {
        const res = await t.app.inject({
          method: 'POST',
          url: `${M}/queryRegionPage`,
          headers: { authorization: `Bearer ${token}` },
          payload: { ...filter, pageSize: 200 },
        });
        const all = await list(filter);
        expect(res.payload).toBe(
          serialize({ errcode: 0, errmsg: 'success', data: { list: all.slice(0, 200), total: all.length } }),
        );
        // The same page again: the kept bytes, with their ETag answered 304.
        const again = await t.app.inject({
          method: 'POST',
          url: `${M}/queryRegionPage`,
          headers: { authorization: `Bearer ${token}`, 'if-none-match': String(res.headers.etag) },
          payload: { ...filter, pageSize: 200 },
        });
        expect(again.statusCode).toBe(304);
      }
    }
  });

  it('refuse bad values and callers without a token', async () => {
    expect((await t.post(`${M}/queryRegionPage`, { pageSize: 1.5 }, token)).body).toEqual({
      errcode: 400,
      errmsg: 'pageSize is invalid: must be a whole number',
    });
    expect((await t.post(`${M}/queryRegionPage`, { levelType: 'x' }, token)).body.errcode).toBe(400);
    expect((await t.post(LIST, { idList: ['x'] }, token)).body.errcode).toBe(400);
    expect((await t.post(`${M}/queryRegionPage`, {})).body.errcode).toBe(401);
    expect((await t.post(LIST, {})).body.errcode).toBe(401);
    expect((await t.post(`${M}/queryRegionPage`, {}, noRoleToken)).body.errcode).toBe(403);
    expect((await t.post(`${M}/queryRegionTree`, {}, noRoleToken)).body.errcode).toBe(403);
    expect((await t.post(`${M}/queryRegionTree`, {})).body.errcode).toBe(401);
  });
});

describe('the cache', () => {
  it('serves the tree and the list from the cache: a row written behind the service is not seen', async () => {
    await tree();
    await list({ levelType: 1 });
    // Written directly on purpose: the row must bypass the service to show the cache serving without it.
    const sneaked = await t.db
      .insertInto('region')
      .values({ name: 'sneaked in', level_type: 1, parent_id: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(findInTree(await tree(), sneaked.id)).toBeUndefined();
    expect(await list({ idList: [sneaked.id] })).toEqual([]);
    // any write through the service drops the cache, and both then show the row
    await addOk({ name: 'invalidator', levelType: 1 });
    expect(findInTree(await tree(), sneaked.id)?.name).toBe('sneaked in');
    expect((await list({ idList: [sneaked.id] })).map((r) => r.name)).toEqual(['sneaked in']);
  });

  it('shows every write at once in the tree, the list and the area tree', async () => {
    await tree();
    const r = await addOk({ name: '缓存区', levelType: 3, parentId: 320100 });
    expect(findInTree(await tree(), r.id)?.name).toBe('缓存区');
    expect((await list({ idList: [r.id] })).map((x) => x.name)).toEqual(['缓存区']);
    const area = (await t.post('/manage-api/system/area/tree', {}, token)).body.data as Array<{
      id: number;
      children?: any[];
    }>;
    const nanjing = area.find((p) => p.id === 320000)!.children!.find((c: { id: number }) => c.id === 320100);
    expect(nanjing.children.map((d: { id: number }) => d.id)).toContain(r.id);

    const page = async () =>
      (await t.post(`${M}/queryRegionPage`, { parentId: 320100, pageSize: 200 }, token)).body.data.list as Region[];
    expect((await page()).find((x) => x.id === r.id)?.name).toBe('缓存区');
    await t.post(`${M}/updateRegion`, { id: r.id, name: '缓存区改', levelType: 3, parentId: 320100 }, token);
    expect(findInTree(await tree(), r.id)?.name).toBe('缓存区改');
    expect((await page()).find((x) => x.id === r.id)?.name).toBe('缓存区改');
    expect((await list({ idList: [r.id] }))[0].name).toBe('缓存区改');

    await t.post(`${M}/deleteRegion`, { id: r.id }, token);
    expect(findInTree(await tree(), r.id)).toBeUndefined();
    expect((await page()).find((x) => x.id === r.id)).toBeUndefined();
    expect(await list({ idList: [r.id] })).toEqual([]);
  });
});

describe('across instances', () => {
  let storeA: Store;
  let storeB: Store;
  let a: TestApp;
  let b: TestApp;
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    if (process.env.REDIS_URL) {
      // two connections, as two processes would have, over one prefix
      const prefix = testStorePrefix('region-xi');
      storeA = await openStore(process.env.REDIS_URL, prefix);
      storeB = await openStore(process.env.REDIS_URL, prefix);
    } else {
      storeA = storeB = await openStore(null, 'unused');
    }
    a = await createTestApp({}, { db: testDb, store: storeA });
    b = await createTestApp({}, { db: testDb, store: storeB });
    tokenA = (await a.loginStaff()).accessToken;
    tokenB = (await b.loginStaff()).accessToken;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await storeA?.close();
    if (storeB !== storeA) await storeB?.close();
  });

  it('a write through one instance is visible in the other instance’s cached tree and list', async () => {
    await tree(b, tokenB);
    await list({}, b);
    const res = await a.post(`${M}/addRegion`, { name: '跨实例', levelType: 1 }, tokenA);
    const id = res.body.data.id as number;
    const seenByB = async () => findInTree(await tree(b, tokenB), id)?.name;
    if (storeA === storeB) {
      expect(await seenByB()).toBe('跨实例');
    } else {
      // Redis delivers the invalidation on B's own subscriber connection
      await expect.poll(seenByB, { timeout: 2_000, interval: 5 }).toBe('跨实例');
    }
    expect((await b.post(LIST, { idList: [id] }, tokenB)).body.data.map((r: Region) => r.name)).toEqual(['跨实例']);
    // and a token issued by A is honoured by B (sessions are shared)
    expect((await b.post(`${M}/getRegion`, { id }, tokenA)).body.data.name).toBe('跨实例');
  });
});
