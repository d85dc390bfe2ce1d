import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPartitionJobs } from '../../src/modules/checker/check-partitions.js';
import {
  dropPartitionsBefore,
  ensureMonthlyPartitions,
  monthPartitions,
  retentionCutoff,
} from '../../src/platform/db/partitions.js';
import { logPartitionJobs } from '../../src/platform/oplog/log-partitions.js';
import { createChecker } from '../helpers/factories.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

/** Monthly partitions of the history tables (src/platform/db/partitions.ts, migration 0032). */

let t: TestDb;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(() => t?.close());

const utc = (y: number, m: number, d = 1) => new Date(Date.UTC(y, m - 1, d));

/** The partition each row of the table lives in, by id. */
async function homes(table: string, ids: number[]): Promise<Record<number, string>> {
  const r = await sql<{ id: string | number; home: string }>`
    select id, tableoid::regclass::text as home from ${sql.table(table)} where id = any(${ids})`.execute(t.db);
  return Object.fromEntries(r.rows.map((row) => [Number(row.id), row.home]));
}

async function insertLogin(at: Date): Promise<number> {
  const r = await t.db
    .insertInto('login_log')
    .values({ account_kind: 'staff', username: 'partition-probe', success: true, created_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(r.id);
}

const LOGIN = { table: 'login_log', column: 'created_at' };

describe('ensureMonthlyPartitions', () => {
  it('makes the months from the current one through the months ahead, once', async () => {
    const now = utc(2040, 11, 20);
    const made = await ensureMonthlyPartitions(t.db, { ...LOGIN, monthsAhead: 3, now });
    expect(made).toEqual(['login_log_p204011', 'login_log_p204012', 'login_log_p204101', 'login_log_p204102']);
    expect(await ensureMonthlyPartitions(t.db, { ...LOGIN, monthsAhead: 3, now })).toEqual([]);
    // Bounds are UTC months: the last instant of a month and the first of the next land apart.
    const before = await insertLogin(new Date(utc(2040, 12).getTime() - 1));
    const at = await insertLogin(utc(2040, 12));
    expect(await homes('login_log', [before, at])).toEqual({
      [before]: 'login_log_p204011',
      [at]: 'login_log_p204012',
    });
  });

  it('makes every month from `from` on (a bulk load of past months)', async () => {
    const made = await ensureMonthlyPartitions(t.db, {
      ...LOGIN,
      monthsAhead: 0,
      from: utc(2041, 10, 15),
      now: utc(2042, 1, 2),
    });
    expect(made).toEqual(['login_log_p204110', 'login_log_p204111', 'login_log_p204112', 'login_log_p204201']);
  });

  it('makes each month once when several runners ask at the same time', async () => {
    const now = utc(2043, 5, 1);
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => ensureMonthlyPartitions(t.db, { ...LOGIN, monthsAhead: 2, now })),
    );
    expect(runs.flat().sort()).toEqual(['login_log_p204305', 'login_log_p204306', 'login_log_p204307']);
    expect((await monthPartitions(t.db, 'login_log')).filter((m) => m.startsWith('2043'))).toEqual([
      '204305',
      '204306',
      '204307',
    ]);
  });

  it('takes a row of a month without a partition into the default one, and moves it when its month is made', async () => {
    const id = await insertLogin(utc(2044, 3, 31));
    const other = await insertLogin(utc(2044, 5, 2));
    expect(await homes('login_log', [id, other])).toEqual({ [id]: 'login_log_default', [other]: 'login_log_default' });
    expect(await ensureMonthlyPartitions(t.db, { ...LOGIN, monthsAhead: 0, now: utc(2044, 3, 10) })).toEqual([
      'login_log_p204403',
    ]);
    expect(await homes('login_log', [id, other])).toEqual({ [id]: 'login_log_p204403', [other]: 'login_log_default' });
    const row = await t.db.selectFrom('login_log').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ username: 'partition-probe', created_at: utc(2044, 3, 31) });
  });

  it('refuses a table or column name that is not a plain identifier', async () => {
    await expect(
      ensureMonthlyPartitions(t.db, { table: 'login_log; drop table card', column: 'created_at', monthsAhead: 1 }),
    ).rejects.toThrow(/plain identifier/);
  });
});

describe('retention', () => {
  it('drops the whole months before the cutoff and the default partition rows before it, nothing else', async () => {
    await ensureMonthlyPartitions(t.db, { ...LOGIN, monthsAhead: 0, from: utc(2045, 1), now: utc(2045, 3) });
    const jan = await insertLogin(utc(2045, 1, 20));
    const feb = await insertLogin(utc(2045, 2, 1));
    const stray = await insertLogin(utc(2044, 12, 31)); // a month without a partition: the default one
    const kept = await insertLogin(utc(2045, 3, 5));
    const dropped = await dropPartitionsBefore(t.db, 'login_log', 'created_at', utc(2045, 2));
    expect(dropped).toContain('login_log_p204501');
    expect(dropped).not.toContain('login_log_p204502');
    expect(Object.keys(await homes('login_log', [jan, feb, stray, kept])).map(Number)).toEqual([feb, kept]);
  });

  it('the retention jobs drop only the logs, older than the setting, and never check records', async () => {
    const months = 2;
    const now = new Date();
    const old = new Date(retentionCutoff(months, now).getTime() - 1);
    await ensureMonthlyPartitions(t.db, { ...LOGIN, monthsAhead: 0, from: old });
    await ensureMonthlyPartitions(t.db, { table: 'card_check_fail', column: 'created_at', monthsAhead: 0, from: old });
    await ensureMonthlyPartitions(t.db, { table: 'card_check', column: 'check_time', monthsAhead: 0, from: old });
    await ensureMonthlyPartitions(t.db, { table: 'operate_log', column: 'created_at', monthsAhead: 0, from: old });
    const checker = await createChecker(t.db);
    const oldLogin = await insertLogin(old);
    const newLogin = await insertLogin(now);
    await sql`insert into operate_log (module, action, success, duration_ms, created_at) values ('probe', 'old', true, 1, ${old})`.execute(
      t.db,
    );
    const fail = (at: Date, nonce: string) =>
      sql`insert into card_check_fail (checker_id, check_time, errcode, reason, nonce, created_at)
        values (${checker.id}, ${at}, 1, 'probe', ${nonce}, ${at})`.execute(t.db);
    await fail(old, 'retention-old');
    await fail(now, 'retention-new');
    await sql`insert into card_check_fail_nonce (checker_id, nonce, fail_id, created_at)
      select checker_id, nonce, id, created_at from card_check_fail where checker_id = ${checker.id}`.execute(t.db);
    const checksBefore = await monthPartitions(t.db, 'card_check');

    const settings = { partitionMonthsAhead: 3, logRetentionMonths: months };
    const jobs = [...logPartitionJobs(t.db, settings), ...checkPartitionJobs(t.db, settings)];
    expect(jobs.map((j) => j.name).filter((n) => n.startsWith('drop '))).toEqual([
      'drop operate_log older than 2 months',
      'drop login_log older than 2 months',
      'drop card_check_fail older than 2 months',
    ]);
    for (const job of jobs) await job.run();

    const cutoffMonth = retentionCutoff(months, now).toISOString().slice(0, 7).replace('-', '');
    expect(await monthPartitions(t.db, 'card_check')).toEqual(
      expect.arrayContaining(checksBefore.filter((m) => m < cutoffMonth)),
    );
    for (const log of ['login_log', 'operate_log', 'card_check_fail'])
      expect((await monthPartitions(t.db, log)).filter((m) => m < cutoffMonth)).toEqual([]);
    expect(Object.keys(await homes('login_log', [oldLogin, newLogin])).map(Number)).toEqual([newLogin]);
    const probes = await t.db.selectFrom('operate_log').select('action').where('module', '=', 'probe').execute();
    expect(probes).toEqual([]);
    const nonces = await t.db
      .selectFrom('card_check_fail_nonce')
      .select('nonce')
      .where('checker_id', '=', checker.id)
      .execute();
    expect(nonces).toEqual([{ nonce: 'retention-new' }]);
  });

  it('is off by default: no retention job', () => {
    const settings = { partitionMonthsAhead: 3, logRetentionMonths: 0 };
    const names = [...logPartitionJobs(t.db, settings), ...checkPartitionJobs(t.db, settings)].map((j) => j.name);
    expect(names).toEqual([
      'create partitions ahead: operate_log, login_log',
      'create partitions ahead: card_check, card_check_fail',
    ]);
  });
});
