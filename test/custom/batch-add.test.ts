import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createMerchant, randomMobile, uniq } from '../helpers/factories.js';
import { staffSession, issueFor, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { upsertOpenApp } from '../../src/platform/auth/open-app.repository.js';
import { sign, signingString } from '../../src/platform/auth/open-signature.js';
import { loadMemberAccount } from '../../src/modules/member/member.repository.js';

/** `/open-api/custom/batchAdd`: up to 500 distributor users in one transaction, or none. */
const PATH = '/open-api/custom/batchAdd';
const APP_KEY = 'batch-test-app';
const APP_SECRET = 'batch-test-secret-0123456789';

let t: TestApp;
let merchantA: StaffSession;
let merchantB: StaffSession;
let disA: number;
let disB: number;

beforeAll(async () => {
  t = await createTestApp();
  await upsertOpenApp(t.db, { appKey: APP_KEY, appSecret: APP_SECRET, name: 'partner system' });
  merchantA = await staffSession(t, {
    kind: 'merchant',
    merchantId: await createMerchant(t.db),
    permissions: ['custom:read', 'custom:write'],
  });
  merchantB = await staffSession(t, {
    kind: 'merchant',
    merchantId: await createMerchant(t.db),
    permissions: ['custom:read', 'custom:write'],
  });
  disA = await newDis(merchantA);
  disB = await newDis(merchantB);
});
afterAll(() => t?.close());

async function newDis(who: StaffSession): Promise<number> {
  const res = await t.post('/manage-api/custom/addCustomDis', { name: uniq('Agency ') }, who.token);
  return res.body.data.id;
}

async function signed(body: unknown) {
  const raw = JSON.stringify(body);
  const ts = String(Date.now());
  const nonce = randomBytes(12).toString('hex');
  const headers = {
    'content-type': 'application/json',
    'x-app-key': APP_KEY,
    'x-timestamp': ts,
    'x-nonce': nonce,
    'x-sign': sign(APP_SECRET, signingString('POST', PATH, ts, nonce, raw)),
  };
  const res = await t.app.inject({ method: 'POST', url: PATH, headers, payload: raw });
  return res.json() as { errcode: number; errmsg: string; data?: any };
}

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `Guide ${i + 1}`, mobile: randomMobile() }));
const usersOf = async (customDisId: number) =>
  t.db
    .selectFrom('custom_dis_user')
    .select(['name', 'mobile', 'remark', 'status', 'created_by'])
    .where('custom_dis_id', '=', customDisId)
    .where('is_deleted', '=', false)
    .orderBy('id')
    .execute();

describe('who may call', () => {
  it('refuses a call without signature or token (401), a member token (401) and staff without custom:write (403)', async () => {
    const body = { customDisId: disA, users: rows(1) };
    expect((await t.post(PATH, body)).body.errcode).toBe(401);
    const member = await loadMemberAccount(t.db, await createMember(t.db));
    expect((await t.post(PATH, body, (await issueFor(t, member!, 'mp')).accessToken)).body.errcode).toBe(401);
    const reader = await staffSession(t, { kind: 'platform', permissions: ['custom:read'] });
    expect((await t.post(PATH, body, reader.token)).body).toEqual({
      errcode: 403,
      errmsg: 'no permission: custom:write is required',
    });
    const tampered = await t.app.inject({
      method: 'POST',
      url: PATH,
      payload: JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        'x-app-key': APP_KEY,
        'x-timestamp': String(Date.now()),
        'x-nonce': 'n'.repeat(16),
        'x-sign': '0'.repeat(64),
      },
    });
    expect(tampered.json().errcode).toBe(401);
  });

  it('adds the users of a signed call, recording the app in the operation log', async () => {
    const dis = await newDis(merchantA);
    const given = [
      { name: ' Guide Zhao ', mobile: randomMobile(), remark: 'weekend', status: '0' },
      { name: 'Guide Qian', mobile: randomMobile(), extra: 'ignored' },
    ];
    const res = await signed({ customDisId: dis, users: given });
    expect(res.errcode, res.errmsg).toBe(0);
    expect(res.data.customDisId).toBe(dis);
    expect(res.data.count).toBe(2);
    expect(res.data.list).toEqual([
      expect.objectContaining({
        customDisId: dis,
        name: 'Guide Zhao',
        mobile: given[0].mobile,
        remark: 'weekend',
        status: 0,
        merchantId: merchantA.merchantId,
      }),
      expect.objectContaining({
        customDisId: dis,
        name: 'Guide Qian',
        mobile: given[1].mobile,
        remark: null,
        status: 1,
      }),
    ]);
    expect((await usersOf(dis)).map((u) => u.created_by)).toEqual([null, null]);
    const log = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'account_kind', 'account_name', 'biz_id', 'success'])
      .where('path', '=', PATH)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(log).toEqual({
      module: '分销商',
      action: '批量新增分销商用户',
      account_kind: 'openApp',
      account_name: 'partner system',
      biz_id: String(dis),
      success: true,
    });
  });

  it("takes a staff token too, within the staff user's merchant", async () => {
    const res = await t.post(PATH, { customDisId: disA, users: rows(2) }, merchantA.token);
    expect(res.body.data.count).toBe(2);
    expect((await t.post(PATH, { customDisId: disB, users: rows(1) }, merchantA.token)).body).toEqual({
      errcode: 403,
      errmsg: 'the record belongs to another merchant',
    });
  });
});

describe('all or nothing', () => {
  it('adds 500 users in one call and refuses 501 or none', async () => {
    const dis = await newDis(merchantA);
    const res = await signed({ customDisId: dis, users: rows(500) });
    expect(res.errcode, res.errmsg).toBe(0);
    expect(res.data.count).toBe(500);
    expect(await usersOf(dis)).toHaveLength(500);
    expect((await signed({ customDisId: dis, users: rows(501) })).errmsg).toMatch(
      /^users is invalid: must hold 1 to 500 items/,
    );
    expect((await signed({ customDisId: dis, users: [] })).errcode).toBe(400);
    expect((await signed({ users: rows(1) })).errmsg).toBe('customDisId is required');
  });

  it('refuses the whole batch naming every failing row and field, with the details in data', async () => {
    const dis = await newDis(merchantA);
    const existing = randomMobile();
    expect((await signed({ customDisId: dis, users: [{ name: 'Old hand', mobile: existing }] })).errcode).toBe(0);
    const users = rows(20);
    users[2].mobile = '1234';
    users[16].name = '   ';
    users[5] = { name: 'x'.repeat(65), mobile: users[0].mobile } as never;
    users[9].mobile = existing;
    (users as unknown[])[11] = 'not a row';
    (users[14] as Record<string, unknown>).status = 7;
    const res = await signed({ customDisId: dis, users });
    expect(res.errcode).toBe(400);
    expect(res.errmsg).toBe(
      'rows 3 (mobile), 6 (name, mobile), 10 (mobile), 12 (row), 15 (status), 17 (name) are invalid: ' +
        'row 3: mobile is invalid: must be an 11-digit mainland mobile number; row 6: name is invalid: must be at most 64 characters long; ' +
        `row 6: mobile is invalid: ${users[0].mobile} repeats row 1; row 10: mobile is invalid: ${existing} is already a user of this distributor; ` +
        'row 12: must be an object {name, mobile, remark, status}; row 15: status is invalid: must be 0 or 1; row 17: name is required. Nothing was added.',
    );
    expect(res.data.errors).toHaveLength(7);
    expect(res.data.errors[0]).toEqual({
      row: 3,
      field: 'mobile',
      message: 'mobile is invalid: must be an 11-digit mainland mobile number',
    });
    expect((await usersOf(dis)).map((u) => u.name)).toEqual(['Old hand']);
    const log = await t.db
      .selectFrom('operate_log')
      .select(['success', 'errcode'])
      .where('path', '=', PATH)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect({ ...log, errcode: Number(log.errcode) }).toEqual({ success: false, errcode: 400 });
  });

  it('keeps a long refusal readable: the first problems spelled out, all of them in data', async () => {
    const dis = await newDis(merchantA);
    const users = rows(120).map((u) => ({ ...u, mobile: 'bad' }));
    const res = await signed({ customDisId: dis, users });
    expect(res.errmsg).toMatch(
      /^rows 1 \(mobile\), 2 \(mobile\), .* 50 \(mobile\) and 70 more rows are invalid: row 1: .*; … 110 more in data\.errors\. Nothing was added\.$/,
    );
    expect(res.data.errors).toHaveLength(120);
    expect(await usersOf(dis)).toEqual([]);
  });

  it('refuses an unknown (404) or disabled (409) distributor', async () => {
    expect(await signed({ customDisId: 999_999_999, users: rows(1) })).toEqual({
      errcode: 404,
      errmsg: 'custom distributor (customDisId) not found',
    });
    const dis = await newDis(merchantA);
    await t.post('/manage-api/custom/updateCustomDis', { id: dis, status: 0 }, merchantA.token);
    expect((await signed({ customDisId: dis, users: rows(1) })).errcode).toBe(409);
  });

  it('adds no user to a distributor of a disabled merchant (1_022_000_001)', async () => {
    const merchant = await createMerchant(t.db);
    const { name } = await t.db
      .selectFrom('merchant')
      .select('name')
      .where('id', '=', merchant)
      .executeTakeFirstOrThrow();
    const dis = await newDis(
      await staffSession(t, { kind: 'merchant', merchantId: merchant, permissions: ['custom:write'] }),
    );
    await t.db.updateTable('merchant').set({ status: 0 }).where('id', '=', merchant).execute();
    expect(await signed({ customDisId: dis, users: rows(3) })).toEqual({
      errcode: 1_022_000_001,
      errmsg: `merchant "${name}" is disabled: enable it first`,
    });
    expect(await usersOf(dis)).toEqual([]);
    await t.db.updateTable('merchant').set({ status: 1 }).where('id', '=', merchant).execute();
    expect((await signed({ customDisId: dis, users: rows(3) })).errcode).toBe(0);
    expect(await usersOf(dis)).toHaveLength(3);
  });

  it('lets only one of two concurrent batches with a shared mobile in, the other naming the row', async () => {
    const dis = await newDis(merchantA);
    const shared = randomMobile();
    const a = [...rows(30), { name: 'Shared', mobile: shared }];
    const b = [{ name: 'Shared too', mobile: shared }, ...rows(30)];
    const [ra, rb] = await Promise.all([
      signed({ customDisId: dis, users: a }),
      signed({ customDisId: dis, users: b }),
    ]);
    expect([ra.errcode, rb.errcode].sort()).toEqual([0, 400]);
    const loser = ra.errcode === 400 ? ra : rb;
    expect(loser.errmsg).toMatch(ra.errcode === 400 ? /^row 31 \(mobile\) is invalid/ : /^row 1 \(mobile\) is invalid/);
    expect(await usersOf(dis)).toHaveLength(31);
  });
});
