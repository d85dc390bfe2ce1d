import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { compiledOnce, namedStatement, preparedAs } from '../../src/platform/db/prepared.js';
import { inTransaction, PoolQueryInTransactionError } from '../../src/platform/db/transaction.js';
import { operationLogWritten, pendingOperationLog, recordOperation } from '../../src/platform/oplog/oplog.js';
import { operateLogRow } from '../../src/platform/oplog/oplog.repository.js';
import type { RequestContext } from '../../src/platform/http/context.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

/** Named prepared statements (platform/db/prepared.ts) and the operation-log entry for one-statement writes. */

let t: TestDb;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(() => t?.close());

describe('preparedAs / namedStatement', () => {
  it('names only marked texts, one name per distinct text', () => {
    const a = sql`${preparedAs('hot-read')} select ${1}::int as n`.compile(t.db);
    const b = sql`${preparedAs('hot-read')} select ${1}::int + 1 as n`.compile(t.db);
    expect(namedStatement(a.sql)).toMatch(/^hot-read-[0-9a-f]{16}$/);
    expect(namedStatement(a.sql)).toBe(
      namedStatement(sql`${preparedAs('hot-read')} select ${2}::int as n`.compile(t.db).sql),
    );
    expect(namedStatement(b.sql)).not.toBe(namedStatement(a.sql));
    expect(namedStatement('select 1')).toBeNull();
    expect(namedStatement('/* prepared:Bad Name */ select 1')).toBeNull();
    expect(() => preparedAs('Bad Name')).toThrow(/lower-case/);
  });

  it('runs a marked query with its parameters, as a named statement on PostgreSQL', async () => {
    const marked = (n: number) =>
      sql<{ n: number }>`${preparedAs('prepared-probe')} select ${n}::int * 2 as n`.execute(t.db);
    const answers = await Promise.all([1, 2, 3].map(marked));
    expect(answers.map((r) => r.rows[0].n)).toEqual([2, 4, 6]);
    if (process.env.DATABASE_URL) {
      // Run on one connection so the statement list is that connection's.
      const names = await t.db.connection().execute(async (conn) => {
        await sql`${preparedAs('prepared-probe')} select ${5}::int * 2 as n`.execute(conn);
        return (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(conn)).rows.map(
          (r) => r.name,
        );
      });
      expect(names.some((n) => n.startsWith('prepared-probe-'))).toBe(true);
    }
  });
});

describe('compiledOnce', () => {
  it("builds the text once and runs it with each call's values, repeated values included, on the pool and in a transaction", async () => {
    let builds = 0;
    const add = compiledOnce(['a', 'b', 'label'] as const, (p) => {
      builds++;
      return sql<{ sum: number; twice: number; label: string | null; fixed: number }>`${preparedAs('compiled-probe')}
        select ${p.a}::int + ${p.b}::int as sum, ${p.a}::int * 2 as twice, ${p.label}::text as label, ${7}::int as fixed`;
    });
    const answers = await Promise.all(
      [
        [1, 2, 'x'],
        [10, 20, null],
        [-3, 3, 'z'],
      ].map(([a, b, label]) => add(t.db, { a, b, label })),
    );
    expect(answers.map((r) => r.rows[0])).toEqual([
      { sum: 3, twice: 2, label: 'x', fixed: 7 },
      { sum: 30, twice: 20, label: null, fixed: 7 },
      { sum: 0, twice: -6, label: 'z', fixed: 7 },
    ]);
    expect(await inTransaction(t.db, async (trx) => (await add(trx, { a: 4, b: 5, label: 'in' })).rows[0].sum)).toBe(9);
    expect(builds).toBe(1);
  });

  it("refuses a pool query from inside the caller's own transaction, as every query of the pool does", async () => {
    const one = compiledOnce(['n'] as const, (p) => sql<{ n: number }>`select ${p.n}::int as n`);
    expect((await one(t.db, { n: 1 })).rows[0].n).toBe(1);
    await expect(inTransaction(t.db, () => one(t.db, { n: 2 }))).rejects.toBeInstanceOf(PoolQueryInTransactionError);
  });
});

describe('pendingOperationLog', () => {
  const ctx = (): RequestContext => ({
    account: {
      id: 7,
      kind: 'checker',
      name: 'Gate keeper',
      userType: null,
      merchantId: 1,
      shopId: null,
      permissions: [],
    },
    tokenHash: null,
    sessionId: null,
    channel: 'app',
    ip: '10.0.0.1',
    userAgent: 'scanner',
    method: 'POST',
    path: '/app-api/x',
    startedAt: Date.now(),
    operation: { module: '模块', action: '动作' },
    operationLog: 'none',
  });

  it('gives the entry recordOperation would write, once, and nothing for unlogged routes', async () => {
    const c = ctx();
    const entry = pendingOperationLog(c, 42);
    expect(entry).toMatchObject({
      module: '模块',
      action: '动作',
      accountKind: 'checker',
      accountId: 7,
      bizId: '42',
      success: true,
      errcode: 0,
    });
    expect(operateLogRow(entry!)).toMatchObject({
      account_name: 'Gate keeper',
      biz_id: '42',
      ip: '10.0.0.1',
      path: '/app-api/x',
    });
    operationLogWritten(c);
    expect(pendingOperationLog(c, 42)).toBeNull();
    // The pipeline's own write is skipped too.
    await recordOperation(t.db, c, 42);
    expect(await t.db.selectFrom('operate_log').select('id').where('path', '=', '/app-api/x').execute()).toEqual([]);
    expect(pendingOperationLog({ ...ctx(), operation: null })).toBeNull();
  });
});
