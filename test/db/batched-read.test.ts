import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchedRead } from '../../src/platform/db/batched-read.js';
import type { Executor } from '../../src/platform/db/executor.js';
import { inTransaction, PoolQueryInTransactionError } from '../../src/platform/db/transaction.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

/** A pool-like executor that is never used for SQL: the loads below answer from a table in memory. */
const pool = { isTransaction: false } as unknown as Executor;
const trx = { isTransaction: true } as unknown as Executor;

/** A read of `table` whose loads are recorded: the executor, the keys and the params of each. */
function recorded(table: Map<number, string>, fail?: (keys: number[]) => boolean) {
  const loads: Array<{ db: Executor; keys: number[]; params: string }> = [];
  const read = batchedRead<number, string, string>(
    async (db, keys, params) => {
      loads.push({ db, keys: [...keys], params });
      if (fail?.(keys)) throw new Error('the statement failed');
      return keys.filter((k) => table.has(k)).map((k) => [k, `${params}:${table.get(k)}`] as const);
    },
    (params) => params,
  );
  return { read, loads };
}

const table = new Map(Array.from({ length: 1000 }, (_, i) => [i, `row${i}`] as const));

describe('point reads made at the same time share one statement', () => {
  it('sends the keys read in one turn together, each once, and answers each read its own row', async () => {
    const { read, loads } = recorded(table);
    const answers = await Promise.all([
      read(pool, 3, 'a'),
      read(pool, 7, 'a'),
      read(pool, 3, 'a'),
      read(pool, 5000, 'a'),
    ]);
    expect(answers).toEqual(['a:row3', 'a:row7', 'a:row3', undefined]);
    expect(loads).toEqual([{ db: pool, keys: [3, 7, 5000], params: 'a' }]);
  });

  it('sends reads of later turns in statements of their own, so each sees what was committed before it', async () => {
    const { read, loads } = recorded(table);
    expect(await read(pool, 1, 'a')).toBe('a:row1');
    expect(await read(pool, 2, 'a')).toBe('a:row2');
    expect(loads.map((l) => l.keys)).toEqual([[1], [2]]);
  });

  it("keeps groups apart and gives each load its own group's params", async () => {
    const { read, loads } = recorded(table);
    expect(
      await Promise.all([read(pool, 1, 'merchant:1'), read(pool, 1, 'merchant:2'), read(pool, 2, 'merchant:1')]),
    ).toEqual(['merchant:1:row1', 'merchant:2:row1', 'merchant:1:row2']);
    expect(loads).toEqual([
      { db: pool, keys: [1, 2], params: 'merchant:1' },
      { db: pool, keys: [1], params: 'merchant:2' },
    ]);
  });

  it('fails every read of a failed statement, and the next statement is sent as usual', async () => {
    const { read } = recorded(table, (keys) => keys.includes(13));
    const failed = await Promise.allSettled([read(pool, 12, 'a'), read(pool, 13, 'a')]);
    expect(failed.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    expect(await read(pool, 12, 'a')).toBe('a:row12');
  });

  it('sends at most 256 keys in one statement and answers every read', async () => {
    const { read, loads } = recorded(table);
    const keys = Array.from({ length: 600 }, (_, i) => i);
    expect(await Promise.all(keys.map((k) => read(pool, k, 'a')))).toEqual(keys.map((k) => `a:row${k}`));
    expect(loads.map((l) => l.keys.length)).toEqual([256, 256, 88]);
  });

  it('reads on a transaction at once, on the transaction, alone', async () => {
    const { read, loads } = recorded(table);
    expect(await Promise.all([read(trx, 4, 'a'), read(trx, 5, 'a')])).toEqual(['a:row4', 'a:row5']);
    expect(loads).toEqual([
      { db: trx, keys: [4], params: 'a' },
      { db: trx, keys: [5], params: 'a' },
    ]);
  });
});

describe('a batched read from inside a transaction of its own database', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDatabase();
  });
  afterAll(() => t?.close());

  it('fails fast, as any other pool query there does, instead of waiting for the pool', async () => {
    const { read, loads } = recorded(table);
    await expect(inTransaction(t.db, () => read(t.db, 1, 'a'))).rejects.toBeInstanceOf(PoolQueryInTransactionError);
    expect(loads).toEqual([]);
  });
});
