import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { DEEP_OFFSET, listTemplate, paginate } from '../../src/platform/db/paginate.js';
import type { Executor } from '../../src/platform/db/executor.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

// A list long enough that its last pages lie beyond DEEP_OFFSET: the rows are made by the test in a
// table of its own (ties and NULLs in `k`, so the order's last key, the id, is what makes it total).
const ROWS = DEEP_OFFSET * 2 + 537;
type Deep = {
  deep_page_row: { id: number; k: number | null; v: string };
};

let t: TestDb;
let db: Kysely<Deep>;

beforeAll(async () => {
  t = await openTestDatabase();
  db = t.db.withTables<Deep>() as unknown as Kysely<Deep>;
  await sql`create table deep_page_row (id bigint primary key, k integer, v text not null)`.execute(t.db);
  await sql`insert into deep_page_row
    select i, case when i % 11 = 0 then null else i % 7 end, 'row ' || i from generate_series(1, ${ROWS}) i`.execute(
    t.db,
  );
});
afterAll(() => t?.close());

/** The page as plain LIMIT/OFFSET reads it: what every answer must equal. */
async function offsetRead(order: string, where: string, limit: number, offset: number) {
  const r = await sql<{ id: number }>`select id from deep_page_row ${sql.raw(where)} order by ${sql.raw(order)}
    limit ${limit} offset ${offset}`.execute(t.db);
  return r.rows.map((x) => Number(x.id));
}

/** A Db that records the statements paginate sends. */
function recorded() {
  const spied = db.withPlugin({ transformQuery: ({ node }) => node, transformResult: async ({ result }) => result });
  const sent = vi.spyOn(spied, 'executeQuery');
  return { db: spied, texts: () => sent.mock.calls.map(([q]) => (q as { sql: string }).sql) };
}

describe('paginate: deep pages are read from the nearer end (docs/adr/0104-deep-pages-read-from-the-nearer-end.md)', () => {
  const orders = [
    { name: 'k desc, id desc', build: (q: any) => q.orderBy('k', 'desc').orderBy('id', 'desc') },
    { name: 'k asc, id asc', build: (q: any) => q.orderBy('k').orderBy('id') },
    {
      name: 'k asc nulls first, id desc',
      build: (q: any) => q.orderBy('k', (o: any) => o.asc().nullsFirst()).orderBy('id', 'desc'),
    },
  ];

  for (const order of orders) {
    it(`answers every page past the middle as OFFSET would, without reading past the middle (${order.name})`, async () => {
      const pageSize = 50;
      const last = Math.ceil(ROWS / pageSize);
      for (const pageNum of [last, last - 1, last - 7, Math.floor(last * 0.8), Math.ceil(last / 2) + 1]) {
        const { db: spied, texts } = recorded();
        const page = await paginate(
          spied as unknown as Executor,
          order.build(spied.selectFrom('deep_page_row').select('id')) as never,
          { pageNum, pageSize },
          (r: { id: number }) => Number(r.id),
        );
        expect(page.total).toBe(ROWS);
        expect(page.list).toEqual(await offsetRead(order.name, '', pageSize, (pageNum - 1) * pageSize));
        const offsets = texts().flatMap((s) => [...s.matchAll(/offset (\d+)/g)].map((m) => Number(m[1])));
        expect(Math.max(...offsets)).toBeLessThan(ROWS / 2);
      }
    });
  }

  it('answers the last short page, a page past the end, and filtered lists', async () => {
    const q = () => db.selectFrom('deep_page_row').select('id').orderBy('id', 'desc');
    const last = Math.ceil(ROWS / 100);
    const short = await paginate(db as unknown as Executor, q() as never, { pageNum: last, pageSize: 100 });
    expect(short.list.map((r: any) => Number(r.id))).toEqual(await offsetRead('id desc', '', 100, (last - 1) * 100));
    expect(short.list).toHaveLength(ROWS % 100);
    expect(await paginate(db as unknown as Executor, q() as never, { pageNum: last + 1, pageSize: 100 })).toEqual({
      list: [],
      total: ROWS,
    });
    const filtered = db.selectFrom('deep_page_row').select('id').where('k', '=', 3).orderBy('v').orderBy('id');
    const total = Number(
      (await sql<{ n: string }>`select count(*) n from deep_page_row where k = 3`.execute(t.db)).rows[0].n,
    );
    const page = await paginate(db as unknown as Executor, filtered as never, {
      pageNum: Math.ceil(total / 10),
      pageSize: 10,
    });
    expect(page.total).toBe(total);
    expect(page.list.map((r: any) => Number(r.id))).toEqual(
      await offsetRead('v, id', 'where k = 3', 10, (Math.ceil(total / 10) - 1) * 10),
    );
  });

  it('reads forwards a list whose order does not end with the id, or is raw SQL', async () => {
    const pageSize = 20;
    const pageNum = Math.ceil(ROWS / pageSize) - 2;
    for (const build of [(q: any) => q.orderBy('v'), (q: any) => q.orderBy(sql`k desc`).orderBy('id')]) {
      const { db: spied, texts } = recorded();
      const page = await paginate(
        spied as unknown as Executor,
        build(spied.selectFrom('deep_page_row').select('id')) as never,
        { pageNum, pageSize },
      );
      expect(page.list).toHaveLength(pageSize);
      expect(texts().some((s) => s.includes(`offset ${(pageNum - 1) * pageSize}`))).toBe(true);
    }
  });

  it('a list built once per shape (listTemplate) turns too', async () => {
    const byK = listTemplate(
      ['k'],
      (p: Record<'k', unknown>, d: Executor) =>
        (d as unknown as Kysely<Deep>)
          .selectFrom('deep_page_row')
          .select('id')
          .where('k', '>=', p.k as number)
          .orderBy('id', 'desc') as never,
    );
    const total = Number(
      (await sql<{ n: string }>`select count(*) n from deep_page_row where k >= 1`.execute(t.db)).rows[0].n,
    );
    const pageNum = Math.ceil(total / 25) - 3;
    const { db: spied, texts } = recorded();
    const page = await paginate(spied as unknown as Executor, byK(spied as unknown as Executor, { k: 1 }), {
      pageNum,
      pageSize: 25,
    });
    expect(page.total).toBe(total);
    expect(page.list.map((r: any) => Number(r.id))).toEqual(
      await offsetRead('id desc', 'where k >= 1', 25, (pageNum - 1) * 25),
    );
    expect(texts().some((s) => /order by "id" asc/.test(s))).toBe(true);
  });
});
