import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { listTemplate, paginate } from '../../src/platform/db/paginate.js';
import type { Executor } from '../../src/platform/db/executor.js';
import {
  advisoryLock,
  inTransaction,
  loggedTransaction,
  PoolQueryInTransactionError,
} from '../../src/platform/db/transaction.js';
import type { RequestContext } from '../../src/platform/http/context.js';
import { createMerchant } from '../helpers/factories.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

let t: TestDb;
let ids: number[];
const tag = `pg-${Date.now()}`;

beforeAll(async () => {
  t = await openTestDatabase();
  ids = [];
  for (let i = 0; i < 23; i++)
    ids.push(await createMerchant(t.db, { name: `${tag} ${String(i).padStart(2, '0')}`, merchant_type: i % 3 }));
});
afterAll(() => t?.close());

const merchants = () => t.db.selectFrom('merchant').select(['id', 'name']).where('name', 'like', `${tag}%`);

/** Fails the test instead of hanging it when a promise never settles. */
const within = <T>(p: Promise<T>, ms = 5000) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)),
  ]);

describe('paginate', () => {
  it('answers each page and the total counted in SQL', async () => {
    const ordered = merchants().orderBy('id');
    const pages = await Promise.all([1, 2, 3].map((pageNum) => paginate(t.db, ordered, { pageNum, pageSize: 10 })));
    expect(pages.map((p) => p.total)).toEqual([23, 23, 23]);
    expect(pages.flatMap((p) => p.list.map((r) => r.id))).toEqual(ids);
    expect(pages.map((p) => p.list.length)).toEqual([10, 10, 3]);
  });

  it('answers an empty list with the true total past the end, and maps rows', async () => {
    const page = await paginate(t.db, merchants().orderBy('id'), { pageNum: 9, pageSize: 10 }, (r) => r.name);
    expect(page).toEqual({ list: [], total: 23 });
    const filtered = await paginate(
      t.db,
      merchants().where('merchant_type', '=', 1).orderBy('id', 'desc'),
      { pageSize: 3 },
      (r) => r.id,
    );
    expect(filtered.total).toBe(ids.filter((_, i) => i % 3 === 1).length);
    expect(filtered.list).toEqual(
      ids
        .filter((_, i) => i % 3 === 1)
        .reverse()
        .slice(0, 3),
    );
    expect(await paginate(t.db, merchants().where('id', '<', 0).orderBy('id'), {})).toEqual({ list: [], total: 0 });
  });

  it('defaults to page 1 of 10', async () => {
    const page = await paginate(t.db, merchants().orderBy('id'), { pageNum: null, pageSize: null });
    expect(page.list).toHaveLength(10);
    expect(page.total).toBe(23);
  });

  it('refuses an unordered query and a grouped one that was not wrapped', async () => {
    await expect(paginate(t.db, merchants(), {})).rejects.toThrow(/ordered/);
    const grouped = t.db
      .selectFrom('merchant')
      .select('merchant_type')
      .groupBy('merchant_type')
      .orderBy('merchant_type');
    await expect(paginate(t.db, grouped, {})).rejects.toThrow(/subquery/);
    const wrapped = t.db
      .selectFrom(grouped.where('name', 'like', `${tag}%`).as('g'))
      .selectAll()
      .orderBy('merchant_type');
    expect((await paginate(t.db, wrapped, { pageSize: 2 })).total).toBe(3);
  });
});

describe('paginate: pages of one list read at the same time', () => {
  /** The test database, counting the statements paginate sends (failed ones too). */
  function counted() {
    const db = t.db.withPlugin({ transformQuery: ({ node }) => node, transformResult: async ({ result }) => result });
    const sent = vi.spyOn(db, 'executeQuery');
    return {
      db,
      seen: {
        get statements() {
          return sent.mock.calls.length;
        },
        get texts() {
          return sent.mock.calls.map(([q]) => (q as { sql: string }).sql);
        },
      },
    };
  }
  const list = (db: typeof t.db, type?: number) => {
    let q = db.selectFrom('merchant').select(['id', 'name']).where('name', 'like', `${tag}%`);
    if (type !== undefined) q = q.where('merchant_type', '=', type);
    return q.orderBy('id', 'desc');
  };
  const asks = [
    { pageNum: 1, pageSize: 5 },
    { pageNum: 3, pageSize: 5 },
    { pageNum: 5, pageSize: 5 },
    { pageNum: 9, pageSize: 5 },
    { pageNum: 2, pageSize: 7 },
    { pageNum: 1, pageSize: 5 },
  ];

  it('answers each page as it answers alone, the rows of all in one statement and the total in one more', async () => {
    const alone = [];
    for (const p of asks) alone.push(await paginate(t.db, list(t.db), p, (r) => ({ id: r.id, name: r.name })));
    const { db, seen } = counted();
    const together = await Promise.all(asks.map((p) => paginate(db, list(db), p, (r) => ({ id: r.id, name: r.name }))));
    expect(together).toEqual(alone);
    expect(together[0].list.map((r) => r.id)).toEqual(ids.slice().reverse().slice(0, 5));
    expect(together[2]).toEqual({
      list: ids
        .slice()
        .reverse()
        .slice(20, 23)
        .map((id) => expect.objectContaining({ id })),
      total: 23,
    });
    // five windows (page 1 asked twice) in one statement, and the count the full and past-the-end pages need
    expect(seen.statements).toBe(2);
  });

  it('answers the pages of a prepared list as alone, its windows as parameters of a named statement', async () => {
    const alone = [];
    for (const p of asks) alone.push(await paginate(t.db, list(t.db, 1), p, (r) => r.id));
    const { db, seen } = counted();
    const together = await Promise.all(
      asks.map((p) => paginate(db, list(db, 1), p, (r) => r.id, { prepared: 'test-page' })),
    );
    expect(together).toEqual(alone);
    const single = await paginate(db, list(db, 1), { pageNum: 2, pageSize: 3 }, (r) => r.id, { prepared: 'test-page' });
    expect(single).toEqual({
      list: ids
        .filter((_, i) => i % 3 === 1)
        .reverse()
        .slice(3, 6),
      total: ids.filter((_, i) => i % 3 === 1).length,
    });
    const pages = seen.texts.filter((q) => !q.includes('count(*)'));
    expect(pages).toHaveLength(2);
    for (const q of pages) expect(q).toMatch(/^\/\* prepared:test-page \*\/ .* limit \$\d+ offset \$\d+/);
  });

  it('hands a window asked for twice to each as a list of its own', async () => {
    const [a, b] = await Promise.all([
      paginate(t.db, list(t.db), { pageSize: 4 }),
      paginate(t.db, list(t.db), { pageSize: 4 }),
    ]);
    expect(a).toEqual(b);
    expect(a.list).not.toBe(b.list);
  });

  it('reads lists of other values apart', async () => {
    const { db, seen } = counted();
    const [one, two] = await Promise.all([
      paginate(db, list(db, 1), { pageSize: 3 }, (r) => r.id),
      paginate(db, list(db, 2), { pageSize: 3 }, (r) => r.id),
    ]);
    expect(one.list).toEqual(
      ids
        .filter((_, i) => i % 3 === 1)
        .reverse()
        .slice(0, 3),
    );
    expect(two.list).toEqual(
      ids
        .filter((_, i) => i % 3 === 2)
        .reverse()
        .slice(0, 3),
    );
    expect([one.total, two.total]).toEqual([
      ids.filter((_, i) => i % 3 === 1).length,
      ids.filter((_, i) => i % 3 === 2).length,
    ]);
    expect(seen.statements).toBe(4);
  });

  it('reads each page alone when their shared statement fails, so a page fails only as it would alone', async () => {
    // A column named like the shared statement's window number makes that statement fail (its order
    // is ambiguous) while each page alone reads well: every page must still be answered.
    const clashing = (db: typeof t.db) =>
      db
        .selectFrom('merchant')
        .select(['id', sql<number>`1`.as('__page_window')])
        .where('name', 'like', `${tag}%`)
        .orderBy('id');
    const { db, seen } = counted();
    const pages = await Promise.all(
      [1, 2, 3].map((pageNum) => paginate(db, clashing(db), { pageNum, pageSize: 10 }, (r) => r.id)),
    );
    expect(pages).toEqual([
      { list: ids.slice(0, 10), total: 23 },
      { list: ids.slice(10, 20), total: 23 },
      { list: ids.slice(20), total: 23 },
    ]);
    expect(seen.texts.filter((q) => q.includes('union all'))).toHaveLength(1);
    expect(seen.statements).toBe(1 + 3 + 1);
    // A page that fails alone fails as alone, beside one that does not.
    const failing = (db: typeof t.db, off: number) =>
      db
        .selectFrom('merchant')
        .select(['id', sql<number>`1 / ${off}`.as('x')])
        .where('name', 'like', `${tag}%`)
        .orderBy('id');
    const [good, bad] = await Promise.allSettled([
      paginate(t.db, failing(t.db, 1), { pageSize: 5 }, (r) => r.id),
      paginate(t.db, failing(t.db, 0), { pageSize: 5 }, (r) => r.id),
    ]);
    expect(good).toEqual({ status: 'fulfilled', value: { list: ids.slice(0, 5), total: 23 } });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/division by zero/) } });
  });

  it('reads the pages of a transaction on it, with its own writes', async () => {
    await t.db
      .transaction()
      .execute(async (trx) => {
        const added = await createMerchant(trx, { name: `${tag} zz`, merchant_type: 0 });
        const pages = await Promise.all(
          [1, 2].map((pageNum) =>
            paginate(
              trx,
              trx.selectFrom('merchant').select('id').where('name', 'like', `${tag}%`).orderBy('id', 'desc'),
              { pageNum, pageSize: 5 },
              (r) => r.id,
            ),
          ),
        );
        expect(pages[0]).toEqual({ list: [added, ...ids.slice().reverse().slice(0, 4)], total: 24 });
        expect(pages[1].list).toEqual(ids.slice().reverse().slice(4, 9));
        await sql`rollback`.execute(trx).catch(() => undefined);
        throw new Error('undo');
      })
      .catch((e: Error) => {
        if (e.message !== 'undo') throw e;
      });
    expect((await paginate(t.db, list(t.db), {})).total).toBe(23);
  });

  it('refuses a query with a window of its own', async () => {
    await expect(paginate(t.db, list(t.db).limit(3), {})).rejects.toThrow(/limit/);
  });
});

describe('paginate: a list built once per shape (listTemplate)', () => {
  const build = vi.fn((p: Record<'pattern' | 'type', unknown>, db: Executor) =>
    db
      .selectFrom('merchant')
      .select(['id', 'name'])
      .where('name', 'like', p.pattern as string)
      .where('merchant_type', '=', p.type as number)
      .orderBy('id', 'desc'),
  );
  const byType = listTemplate(['pattern', 'type'], build);

  it('answers every page and total as the list built for each request does, building it once', async () => {
    for (const type of [0, 1, 2]) {
      for (const page of [
        { pageNum: 1, pageSize: 3 },
        { pageNum: 3, pageSize: 3 },
        { pageNum: 9, pageSize: 3 },
      ]) {
        const built = t.db
          .selectFrom('merchant')
          .select(['id', 'name'])
          .where('name', 'like', `${tag}%`)
          .where('merchant_type', '=', type)
          .orderBy('id', 'desc');
        expect(await paginate(t.db, byType(t.db, { pattern: `${tag}%`, type }), page, (r) => r.id)).toEqual(
          await paginate(t.db, built, page, (r) => r.id),
        );
      }
    }
    const expected = ids.filter((_, i) => i % 3 === 2).reverse();
    expect(
      await paginate(t.db, byType(t.db, { pattern: `${tag}%`, type: 2 }), { pageNum: 2, pageSize: 3 }, (r) => r.id),
    ).toEqual({ list: expected.slice(3, 6), total: expected.length });
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('still fails fast when code pages the pool inside its own transaction', async () => {
    const attempt = inTransaction(t.db, async () => paginate(t.db, byType(t.db, { pattern: `${tag}%`, type: 1 }), {}));
    await expect(within(attempt)).rejects.toBeInstanceOf(PoolQueryInTransactionError);
    const onTrx = await inTransaction(t.db, async (trx) =>
      paginate(trx, byType(trx, { pattern: `${tag}%`, type: 1 }), { pageSize: 2 }, (r) => r.id),
    );
    expect(onTrx).toEqual({
      list: ids
        .filter((_, i) => i % 3 === 1)
        .reverse()
        .slice(0, 2),
      total: ids.filter((_, i) => i % 3 === 1).length,
    });
  });
});

describe('transactions', () => {
  const ctx = (): RequestContext => ({
    account: { id: 7, kind: 'admin', name: 'tester', userType: 1, merchantId: null, shopId: null, permissions: [] },
    tokenHash: null,
    sessionId: null,
    channel: 'manage',
    ip: '127.0.0.1',
    userAgent: 'vitest',
    method: 'POST',
    path: '/probe',
    startedAt: Date.now(),
    operation: { module: '探针', action: '事务' },
    operationLog: 'none',
  });

  it('writes the operation log inside the transaction, and neither survives a rollback', async () => {
    const okName = `${tag}-tx-ok`;
    const c1 = ctx();
    const id = await loggedTransaction(
      t.db,
      c1,
      (trx) => createMerchant(trx, { name: okName }),
      (newId) => newId,
    );
    expect(c1.operationLog).toBe('in-transaction');
    const logged = await t.db
      .selectFrom('operate_log')
      .select(['biz_id', 'success'])
      .where('biz_id', '=', String(id))
      .where('module', '=', '探针')
      .execute();
    expect(logged).toEqual([{ biz_id: String(id), success: true }]);

    const badName = `${tag}-tx-bad`;
    await expect(
      loggedTransaction(t.db, ctx(), async (trx) => {
        await createMerchant(trx, { name: badName });
        throw new Error('injected after the first write');
      }),
    ).rejects.toThrow('injected');
    expect(await t.db.selectFrom('merchant').select('id').where('name', '=', badName).execute()).toEqual([]);
  });

  it('fails fast, not hangs, when code queries the pool while its transaction is open', async () => {
    const attempt = inTransaction(t.db, async (trx) => {
      await createMerchant(trx, { name: `${tag}-inside` });
      await t.db.selectFrom('merchant').select('id').limit(1).execute();
    });
    await expect(within(attempt)).rejects.toBeInstanceOf(PoolQueryInTransactionError);
    const nested = inTransaction(t.db, () => inTransaction(t.db, async () => 1));
    await expect(within(nested)).rejects.toBeInstanceOf(PoolQueryInTransactionError);
    // Nothing is left half-done, and the database still answers afterwards.
    expect(await t.db.selectFrom('merchant').select('id').where('name', '=', `${tag}-inside`).execute()).toEqual([]);
  });

  it('lets concurrent requests each use the pool outside their own transaction', async () => {
    const results = await Promise.all([
      inTransaction(t.db, (trx) => createMerchant(trx, { name: `${tag}-c1` })),
      t.db
        .selectFrom('merchant')
        .select('id')
        .limit(1)
        .execute()
        .then((r) => r.length),
    ]);
    expect(results[1]).toBe(1);
  });
});

describe('advisoryLock', () => {
  it('refuses to run outside a transaction', async () => {
    await expect(advisoryLock(t.db as never, 'allocation-scope', 1)).rejects.toThrow(/transaction/);
  });

  it('serialises two transactions on the same key and not on different keys', async () => {
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((r) => (releaseFirst = r));
    let firstLocked!: () => void;
    const locked = new Promise<void>((r) => (firstLocked = r));
    const first = inTransaction(t.db, async (trx) => {
      await advisoryLock(trx, 'allocation-scope', '2026-05:7');
      order.push('first locked');
      firstLocked();
      await firstHolds;
      order.push('first done');
    });
    await locked;
    if (t.database.kind === 'postgres') {
      // Another connection asking for another key goes ahead; the same key waits for the commit.
      await within(inTransaction(t.db, (trx) => advisoryLock(trx, 'allocation-scope', '2026-05:8')));
      const second = inTransaction(t.db, async (trx) => {
        await advisoryLock(trx, 'allocation-scope', '2026-05:7');
        order.push('second locked');
      });
      await new Promise((r) => setTimeout(r, 150));
      expect(order).toEqual(['first locked']);
      releaseFirst();
      await within(Promise.all([first, second]));
      // other test runs on this server hold advisory locks of their own: count this database's only
      expect(order).toEqual(['first locked', 'first done', 'second locked']);
      const held = await sql<{
        n: string;
      }>`select count(*) as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`.execute(
        t.db,
      );
      expect(Number(held.rows[0].n)).toBe(0);
    } else {
      // PGlite is one session: transactions already run one at a time and the lock call succeeds.
      releaseFirst();
      await within(first);
      await within(inTransaction(t.db, (trx) => advisoryLock(trx, 'allocation-scope', '2026-05:7')));
      expect(order).toEqual(['first locked', 'first done']);
    }
  });
});
