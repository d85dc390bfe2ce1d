import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { paginate } from '../../src/platform/db/paginate.js';
import { advisoryLock, inTransaction, loggedTransaction, PoolQueryInTransactionError } from '../../src/platform/db/transaction.js';
import type { RequestContext } from '../../src/platform/http/context.js';
import { createMerchant } from '../helpers/factories.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

let t: TestDb;
let ids: number[];
const tag = `pg-${Date.now()}`;

beforeAll(async () => {
  t = await openTestDatabase();
  ids = [];
  for (let i = 0; i < 23; i++) ids.push(await createMerchant(t.db, { name: `${tag} ${String(i).padStart(2, '0')}`, merchant_type: i % 3 }));
});
afterAll(() => t?.close());

const merchants = () => t.db.selectFrom('merchant').select(['id', 'name']).where('name', 'like', `${tag}%`);

/** Fails the test instead of hanging it when a promise never settles. */
const within = <T>(p: Promise<T>, ms = 5000) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))]);

describe('paginate', () => {
  it('answers each page and the total counted in SQL', async () => {
    const ordered = merchants().orderBy('id');
    const pages = await Promise.all([1, 2, 3].map((pageNum) => paginate(ordered, { pageNum, pageSize: 10 })));
    expect(pages.map((p) => p.total)).toEqual([23, 23, 23]);
    expect(pages.flatMap((p) => p.list.map((r) => r.id))).toEqual(ids);
    expect(pages.map((p) => p.list.length)).toEqual([10, 10, 3]);
  });

  it('answers an empty list with the true total past the end, and maps rows', async () => {
    const page = await paginate(merchants().orderBy('id'), { pageNum: 9, pageSize: 10 }, (r) => r.name);
    expect(page).toEqual({ list: [], total: 23 });
    const filtered = await paginate(merchants().where('merchant_type', '=', 1).orderBy('id', 'desc'), { pageSize: 3 }, (r) => r.id);
    expect(filtered.total).toBe(ids.filter((_, i) => i % 3 === 1).length);
    expect(filtered.list).toEqual(ids.filter((_, i) => i % 3 === 1).reverse().slice(0, 3));
    expect(await paginate(merchants().where('id', '<', 0).orderBy('id'), {})).toEqual({ list: [], total: 0 });
  });

  it('defaults to page 1 of 10', async () => {
    const page = await paginate(merchants().orderBy('id'), { pageNum: null, pageSize: null });
    expect(page.list).toHaveLength(10);
    expect(page.total).toBe(23);
  });

  it('refuses an unordered query and a grouped one that was not wrapped', async () => {
    await expect(paginate(merchants(), {})).rejects.toThrow(/ordered/);
    const grouped = t.db.selectFrom('merchant').select('merchant_type').groupBy('merchant_type').orderBy('merchant_type');
    await expect(paginate(grouped, {})).rejects.toThrow(/subquery/);
    const wrapped = t.db.selectFrom(grouped.where('name', 'like', `${tag}%`).as('g')).selectAll().orderBy('merchant_type');
    expect((await paginate(wrapped, { pageSize: 2 })).total).toBe(3);
  });
});

describe('transactions', () => {
  const ctx = (): RequestContext => ({
    account: { id: 7, kind: 'admin', name: 'tester', userType: 1, merchantId: null, shopId: null, permissions: [] },
    tokenHash: null, sessionId: null, channel: 'manage', ip: '127.0.0.1', userAgent: 'vitest', method: 'POST', path: '/probe',
    startedAt: Date.now(), operation: { module: '探针', action: '事务' }, operationLog: 'none',
  });

  it('writes the operation log inside the transaction, and neither survives a rollback', async () => {
    const okName = `${tag}-tx-ok`;
    const c1 = ctx();
    const id = await loggedTransaction(t.db, c1, (trx) => createMerchant(trx, { name: okName }), (newId) => newId);
    expect(c1.operationLog).toBe('in-transaction');
    const logged = await t.db.selectFrom('operate_log').select(['biz_id', 'success']).where('biz_id', '=', String(id)).where('module', '=', '探针').execute();
    expect(logged).toEqual([{ biz_id: String(id), success: true }]);

    const badName = `${tag}-tx-bad`;
    await expect(loggedTransaction(t.db, ctx(), async (trx) => {
      await createMerchant(trx, { name: badName });
      throw new Error('injected after the first write');
    })).rejects.toThrow('injected');
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
      t.db.selectFrom('merchant').select('id').limit(1).execute().then((r) => r.length),
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
      const held = await sql<{ n: string }>`select count(*) as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`.execute(t.db);
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
