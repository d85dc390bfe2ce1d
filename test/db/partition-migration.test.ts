import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { insertCheckFail } from '../../src/modules/checker/check-fail.repository.js';
import { findEarlierScan } from '../../src/modules/checker/checkin.repository.js';
import { foldCheckRollup } from '../../src/modules/statistics/check-rollup.js';
import { openDatabase, type Database, type Db } from '../../src/platform/db/database.js';
import { isUniqueViolation } from '../../src/platform/db/pg-errors.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createCard, createCardModel, createChecker, createShop, createSku, createSpu } from '../helpers/factories.js';
import { adminUrl, TEST_TZ } from '../helpers/test-env.js';

/**
 * Migration 0032 converts a populated database in place (docs/adr/0100-history-tables-partitioned-by-month.md):
 * a database at migration 0031 is filled with checks over 24 months (1M on PostgreSQL, 50k on
 * PGlite), logs and refusals with nonces, and folded into the statistics; after migrating, every row,
 * sum, month and statistics row is as it was, ids go on past the old ones and nonces still deduplicate.
 */

const BEFORE = '20261128_0031_minimal_add_requests';
const url = process.env.DATABASE_URL || null;
const CHECKS = url ? 1_000_000 : 50_000;
const LOGS = CHECKS / 10;
const FAILS = CHECKS / 20;
const SPAN_DAYS = 730;

let database: Database;
let db: Db;
let dropDatabase: () => Promise<void> = async () => {};

async function openFresh(): Promise<void> {
  if (!url) {
    database = openDatabase({ databaseUrl: null, dataDir: '.test-cache', tz: TEST_TZ, inMemory: true });
  } else {
    const name = `tc_pm_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    database = openDatabase({ databaseUrl: adminUrl(url, name), dataDir: '.test-cache', tz: TEST_TZ, poolMax: 4 });
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  db = database.db;
}

interface World {
  checkers: number[];
  start: Date;
}

/** Cards of two models at two spots, two verifiers; then the rows, set-wise. */
async function fill(): Promise<World> {
  const shop = await createShop(db);
  const spus = [await createSpu(db, { shop_id: shop }), await createSpu(db, { shop_id: shop })];
  const skus = [await createSku(db, { goods_id: spus[0] }), await createSku(db, { goods_id: spus[1] })];
  const models = [await createCardModel(db), await createCardModel(db)];
  const cards: number[] = [];
  const cardModels: number[] = [];
  for (let i = 0; i < 40; i++) {
    cards.push(await createCard(db, { card_model_id: models[i % 2] }));
    cardModels.push(models[i % 2]);
  }
  const checkers = [(await createChecker(db)).id, (await createChecker(db)).id];
  const start = new Date(Date.now() - SPAN_DAYS * 86_400_000);
  const step = (SPAN_DAYS * 86_400) / CHECKS;
  // Check g: card g % 40, spot g % 2, verifier g % 2, every 10th with a nonce, every 97th revoked.
  await sql`
    insert into card_check (card_id, card_model_id, sku_id, resource_id, checker_id, consume_num, check_type, status,
      check_time, check_date, is_deleted, nonce, checks_left, created_at, updated_at)
    select (${cards}::bigint[])[1 + g % 40], (${cardModels}::bigint[])[1 + g % 40], (${skus}::bigint[])[1 + g % 2],
      (${spus}::bigint[])[1 + g % 2], (${checkers}::bigint[])[1 + g % 2], 1 + g % 3, 1, 1,
      t.at, (t.at at time zone ${TEST_TZ})::date, g % 97 = 0, case when g % 10 = 0 then 'n' || g end, g % 5, t.at, t.at
    from generate_series(1, ${CHECKS}::integer) g
    cross join lateral (select ${start}::timestamptz + make_interval(secs => g * ${step}::float8) as at) t`.execute(db);
  const logTime = sql`${start}::timestamptz + make_interval(secs => g * ${(SPAN_DAYS * 86_400) / LOGS}::float8)`;
  await sql`
    insert into operate_log (module, action, account_kind, account_id, path, success, errcode, duration_ms, created_at)
    select 'probe', 'act' || g % 7, 'staff', g % 13, '/x/' || g, g % 9 <> 0, 0, g % 50, ${logTime}
    from generate_series(1, ${LOGS}::integer) g`.execute(db);
  await sql`
    insert into login_log (account_kind, account_id, username, success, message, created_at)
    select 'staff', g % 13, 'user' || g % 13, g % 4 <> 0, 'm' || g, ${logTime}
    from generate_series(1, ${LOGS}::integer) g`.execute(db);
  // Refusals: every other one with a nonce of its own; one with the nonce of check 10's send.
  await sql`
    insert into card_check_fail (checker_id, merchant_id, sku_id, card_number, check_time, errcode, reason, nonce, created_at)
    select (${checkers}::bigint[])[1 + g % 2], 1, (${skus}::bigint[])[1 + g % 2], 'card' || g,
      ${logTime}, 1013000001 + g % 5, 'reason ' || g, case when g % 2 = 0 then 'f' || g end, ${logTime}
    from generate_series(1, ${FAILS}::integer) g`.execute(db);
  await sql`
    insert into card_check_fail (checker_id, sku_id, check_time, errcode, reason, nonce)
    values (${checkers[0]}, ${skus[0]}, now(), 1013000005, 'lost the race', 'n10')`.execute(db);
  await foldCheckRollup(db);
  return { checkers, start };
}

const CONTENT = (table: string) =>
  sql<{
    n: string;
    ids: string;
    content: string;
  }>`select count(*)::text as n, coalesce(sum(id), 0)::text as ids, coalesce(sum(hashtext(t::text)::bigint), 0)::text as content
    from ${sql.table(table)} t`;

const STAT_TABLES = ['stat_check_rollup', 'stat_check_day', 'stat_card_use', 'stat_resource_day', 'stat_check_fold'];

/** What must survive the migration: every row's content, the sums, the months, the statistics. */
async function snapshot() {
  const tables: Record<string, unknown> = {};
  for (const table of ['card_check', 'card_check_fail', 'operate_log', 'login_log'])
    tables[table] = (await CONTENT(table).execute(db)).rows[0];
  const checks = await sql`
    select count(*)::text as n, sum(consume_num)::text as entries, sum(consume_num) filter (where not is_deleted)::text as living,
      count(nonce)::text as nonces, max(id)::text as max_id
    from card_check`.execute(db);
  const months = await sql`
    select to_char(check_time at time zone 'UTC', 'YYYY-MM') as month, count(*)::text as n, sum(consume_num)::text as entries
    from card_check group by 1 order by 1`.execute(db);
  const stats: Record<string, unknown> = {};
  for (const table of STAT_TABLES) {
    stats[table] = (
      await sql`select count(*)::text as n, coalesce(sum(hashtext(t::text)::bigint), 0)::text as content
        from ${sql.table(table)} t`.execute(db)
    ).rows[0];
  }
  return { tables, checks: checks.rows[0], months: months.rows, stats };
}

let world: World;
let before: Awaited<ReturnType<typeof snapshot>>;
let migrationMs = 0;

beforeAll(async () => {
  await openFresh();
  const migrated = await new Migrator({ db, provider: migrationProvider }).migrateTo(BEFORE);
  if (migrated.error) throw migrated.error;
  world = await fill();
  before = await snapshot();
  const started = performance.now();
  await migrateToLatest(db);
  migrationMs = performance.now() - started;
  console.log(
    `migration 0032: ${CHECKS} checks + ${2 * LOGS + FAILS} log rows in ${(migrationMs / 1000).toFixed(1)} s ` +
      `(${Math.round(((CHECKS + 2 * LOGS + FAILS) / migrationMs) * 1000)} rows/s, ${database.kind})`,
  );
}, 1_800_000);
afterAll(async () => {
  await database?.close();
  await dropDatabase();
});

describe('migration 0032 on a populated database', () => {
  it('keeps every row, id, sum, month and statistics row', async () => {
    expect(Number(before.checks && (before.checks as { n: string }).n)).toBe(CHECKS);
    expect(await snapshot()).toEqual(before);
  });

  it('leaves the history tables partitioned by month, with nothing in the default partitions', async () => {
    for (const table of ['card_check', 'card_check_fail', 'operate_log', 'login_log']) {
      const r = await sql<{
        kind: string;
      }>`select relkind as kind from pg_class where oid = ${table}::regclass`.execute(db);
      expect(r.rows[0].kind).toBe('p');
      const rest = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(`${table}_default`)}`.execute(
        db,
      );
      expect(rest.rows[0].n).toBe(0);
    }
    const months = await sql<{ n: number }>`
      select count(*)::int as n from pg_inherits where inhparent = 'card_check'::regclass`.execute(db);
    // 24 months and the one begun, 3 ahead, the default
    expect(months.rows[0].n).toBeGreaterThanOrEqual(25 + 3 + 1);
  });

  it('goes on with ids past the old ones', async () => {
    const maxId = Number((before.checks as { max_id: string }).max_id);
    const r = await sql<{ id: string }>`
      insert into login_log (account_kind, username, success) values ('staff', 'after', true) returning id`.execute(db);
    expect(Number(r.rows[0].id)).toBeGreaterThan(Number(LOGS));
    const seq = await sql<{ v: string }>`select last_value::text as v from card_check_id_seq`.execute(db);
    expect(Number(seq.rows[0].v)).toBeGreaterThanOrEqual(maxId);
  });

  it('keeps the nonces: a check wins over a refusal, a refusal answers, a second claim fails', async () => {
    const [k0, k1] = world.checkers;
    const nonces = await sql<{ checks: number; fails: number }>`
      select (select count(*)::int from card_check_nonce) as checks, (select count(*)::int from card_check_fail_nonce) as fails`.execute(
      db,
    );
    expect(nonces.rows[0]).toEqual({ checks: CHECKS / 10, fails: FAILS / 2 + 1 });
    // Check 10 was made by verifier (g % 2 = 0) k0; a refusal also carries its nonce.
    expect(await findEarlierScan(db, k0, 'n10')).toMatchObject({ kind: 'checked', checkId: expect.any(Number) });
    expect(await findEarlierScan(db, k1, 'f3')).toBeNull(); // odd refusals have no nonce
    expect(await findEarlierScan(db, k0, 'f2')).toMatchObject({ kind: 'refused', reason: 'reason 2' });
    const check = await db
      .selectFrom('card_check_nonce')
      .selectAll()
      .where('nonce', '=', 'n20')
      .executeTakeFirstOrThrow();
    const err = await sql`insert into card_check_nonce (checker_id, nonce, check_id, check_time)
      values (${check.checker_id}, 'n20', 0, now())`
      .execute(db)
      .catch((e: unknown) => e);
    expect(isUniqueViolation(err, 'card_check_nonce_pkey')).toBe(true);
    const refusal = {
      checkerId: k0,
      merchantId: null,
      shopId: null,
      skuId: 1,
      entranceId: null,
      cardId: null,
      cardNumber: 'again',
      idType: null,
      idNo: null,
      facePhoto: null,
      checkType: 1,
      consumeNum: 1,
      checkTime: new Date(),
      errcode: 1013000001,
      reason: 'again',
    };
    const failsOf = async () => Number((await CONTENT('card_check_fail').execute(db)).rows[0].n);
    const count = await failsOf();
    await insertCheckFail(db, { ...refusal, nonce: 'f2' });
    expect(await failsOf()).toBe(count);
    await insertCheckFail(db, { ...refusal, nonce: 'fresh' });
    await insertCheckFail(db, { ...refusal, nonce: null });
    expect(await failsOf()).toBe(count + 2);
  });

  it('keeps the statistics triggers: revoking a folded check takes it out of its day', async () => {
    const r = await sql<{ id: string; consume_num: number; day: string; model: string; sku: string }>`
      select id::text, consume_num, stat_utc_day(check_time)::text as day, card_model_id::text as model, sku_id::text as sku
      from card_check where not is_deleted order by id limit 1`.execute(db);
    const k = r.rows[0];
    const dayEntries = async () =>
      Number(
        (
          await sql<{ e: string }>`select entries::text as e from stat_check_day
            where check_day = ${k.day}::date and card_model_id = ${k.model} and sku_id = ${k.sku}`.execute(db)
        ).rows[0].e,
      );
    const was = await dayEntries();
    await sql`update card_check set is_deleted = true where id = ${k.id}`.execute(db);
    expect(await dayEntries()).toBe(was - k.consume_num);
    expect(await foldCheckRollup(db)).toBe(0); // everything was folded before; the mark did not move
  });
});
