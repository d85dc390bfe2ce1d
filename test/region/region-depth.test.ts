import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { insertRegionsWithIds, type RegionValues } from '../../src/modules/region/region.repository.js';

const M = '/manage-api/region';

interface Node {
  id: number;
  name: string;
  children?: Node[];
}

let t: TestApp;
let token: string;
// Explicit ids far above the seeded codes and the identity sequence (from 1,000,000).
let nextId = 700_000_000;

beforeAll(async () => {
  t = await createTestApp();
  token = (await t.loginStaff()).accessToken;
});
afterAll(() => t?.close());

const values = (name: string, parentId: number, levelType = 3): RegionValues => ({
  name,
  parentId,
  levelType,
  shortName: null,
  cityCode: null,
  zipCode: null,
  mergerName: null,
  lng: null,
  lat: null,
  pinYin: null,
});

/** A chain of `length` regions under `top`, each the parent of the next; answers their ids, top first. */
async function chain(length: number, top = 320100): Promise<number[]> {
  const ids = Array.from({ length }, () => nextId++);
  await insertRegionsWithIds(
    t.db,
    ids.map((id, i) => ({ id, ...values(`chain ${id}`, i === 0 ? top : ids[i - 1]) })),
  );
  await t.post(`${M}/addRegion`, { name: 'drops the cached trees', levelType: 1 }, token);
  return ids;
}

/** The path of ids from a root down to `id`, found without recursion. */
function pathTo(roots: Node[], id: number): number[] | null {
  const stack: Array<{ node: Node; path: number[] }> = roots.map((node) => ({ node, path: [node.id] }));
  while (stack.length) {
    const { node, path } = stack.pop()!;
    if (node.id === id) return path;
    for (const c of node.children ?? []) stack.push({ node: c, path: [...path, c.id] });
  }
  return null;
}

/** How many times a node with this id occurs in the tree. */
function occurrences(roots: Node[], id: number): number {
  let n = 0;
  const stack = [...roots];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.id === id) n++;
    stack.push(...(node.children ?? []));
  }
  return n;
}

const update = (id: number, parentId: number) =>
  t.post(`${M}/updateRegion`, { id, name: `moved ${id}`, levelType: 3, parentId }, token);

describe('trees of any depth', () => {
  let deep: number[];
  beforeAll(async () => {
    deep = await chain(3000);
  });

  it('answers queryRegionTree with a 3,000-level chain in full', async () => {
    const res = await t.post(`${M}/queryRegionTree`, {}, token);
    expect(res.status).toBe(200);
    expect(res.body.errcode).toBe(0);
    const path = pathTo(res.body.data, deep.at(-1)!)!;
    expect(path.slice(0, 3)).toEqual([320000, 320100, deep[0]]);
    expect(path).toHaveLength(3002);
  });

  it('answers system/area/tree with it too', async () => {
    const res = await t.post('/manage-api/system/area/tree', {}, token);
    expect(res.status).toBe(200);
    expect(res.body.errcode).toBe(0);
    expect(pathTo(res.body.data, deep.at(-1)!)).toHaveLength(3002);
  });

  it('refuses to move the top of the chain under its own leaf, 3,000 levels down', async () => {
    const res = await update(deep[0], deep.at(-1)!);
    expect(res.body).toEqual({
      errcode: 409,
      errmsg: 'a region cannot be moved under itself or one of its descendants',
    });
  });
});

describe('cycle check', () => {
  it('refuses moving the root of a 20-region chain under any region below it, and under itself', async () => {
    const ids = await chain(20);
    for (const below of [ids[1], ids[16], ids[17], ids[19]]) {
      expect((await update(ids[0], below)).body.errcode).toBe(409);
    }
    expect((await update(ids[5], ids[5])).body.errcode).toBe(409);
    // the chain is intact and still nests under 南京市
    const tree = (await t.post(`${M}/queryRegionTree`, {}, token)).body.data;
    expect(pathTo(tree, ids[19])!.slice(0, 3)).toEqual([320000, 320100, ids[0]]);
    // moving sideways or up stays allowed
    expect((await update(ids[19], ids[0])).body.errcode).toBe(0);
    expect((await update(ids[10], 320000)).body.errcode).toBe(0);
  });

  it('lets only one of two crossing moves commit', async () => {
    for (let round = 0; round < 6; round++) {
      const [a] = await chain(1);
      const [b] = await chain(1);
      const answers = await Promise.all([update(a, b), update(b, a)]);
      expect(answers.map((r) => r.body.errcode).sort()).toEqual([0, 409]);
    }
  });

  it('still shows regions that already form a loop, once each, and lets an operator break it', async () => {
    const [x, y] = await chain(2);
    // a loop written before the check existed: x under y, y under x
    await t.db.updateTable('region').set({ parent_id: y }).where('id', '=', x).execute();
    await t.post(`${M}/addRegion`, { name: 'drops the cached trees', levelType: 1 }, token);
    const tree = (await t.post(`${M}/queryRegionTree`, {}, token)).body.data as Node[];
    expect([occurrences(tree, x), occurrences(tree, y)]).toEqual([1, 1]);
    expect((await t.post(`${M}/deleteRegion`, { id: y }, token)).body.errcode).toBe(409);
    expect((await update(x, 320100)).body.errcode).toBe(0);
    expect((await t.post(`${M}/deleteRegion`, { id: y }, token)).body.errcode).toBe(0);
    expect((await t.post(`${M}/deleteRegion`, { id: x }, token)).body.errcode).toBe(0);
  });
});
