/**
 * What enforcing a spot's capacity costs at check-in (issue 39, docs/adr/0105-exact-spot-capacity.md),
 * on PostgreSQL (DATABASE_URL; REDIS_URL optional): the check-in rate over HTTP at spots with a
 * capacity (daily and a slot over the whole day, large enough never to refuse, so every scan raises
 * the card's, the day's and the slot's counters) against the same number of spots without one, in the
 * same run, alternating rounds; the load from a process of its own (bench/checkin-load.ts), every
 * scan a different card (daily limit 1 enforced on both sides). Target: the rate with capacity ≥ 0.9
 * of the rate without. After the load, each spot's counters are compared with its records (exact).
 *
 * BENCH_DURATION_S (10 per side), BENCH_ROUNDS (2), BENCH_CONNECTIONS (32), BENCH_POOL (20),
 * BENCH_CAPACITY_SPOTS (8 per side), BENCH_CAPACITY_CARDS (200,000).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openDatabase, type Database } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { seedReferenceData } from '../src/seed/reference.js';
import { hashPassword } from '../src/platform/auth/password.js';
import { openStore } from '../src/platform/store/index.js';
import { report } from './report.js';
import { runLoadProcess } from './load-process.js';
import { scratchDatabase } from './bench-app.js';
import { benchStorePrefix, deleteRedisKeys } from '../test/helpers/redis-keys.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const POOL = Number(process.env.BENCH_POOL ?? 20);
const SPOTS = Number(process.env.BENCH_CAPACITY_SPOTS ?? 8);
const CARDS = Number(process.env.BENCH_CAPACITY_CARDS ?? 200_000);
const HTTP_CARDS_PER_S = 8_000;
const CAPACITY = 100_000_000;

const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) {
  console.log('capacity bench: set DATABASE_URL to a PostgreSQL database (REDIS_URL optional); nothing measured.');
  process.exit(0);
}
const TAG = randomBytes(2).toString('hex').toUpperCase();
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-capacity-'));
const storePrefix = benchStorePrefix();
const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};
type Run = { ok: number; seconds: number; done: number };

async function main(): Promise<void> {
  const scratch = await scratchDatabase(withDatabase(baseUrl!, 'postgres'));
  let database: Database | null = null;
  try {
    const cfg = loadConfig({
      ...process.env,
      DATABASE_URL: scratch.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      STORE_PREFIX: storePrefix,
      LOGIN_RATE_PER_MIN: '1000',
    });
    process.env.TZ = cfg.tz;
    database = openDatabase({ databaseUrl: cfg.databaseUrl, dataDir, tz: cfg.tz, poolMax: POOL });
    const db = database.db;
    await migrateToLatest(db);
    await seedReferenceData(db, {
      adminUsername: 'admin',
      adminPassword: randomBytes(9).toString('hex'),
      openApp: null,
    });

    const merchant = (
      await db
        .insertInto('merchant')
        .values({ name: `Bench scenic co. ${TAG}` })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    const shop = (
      await db
        .insertInto('shop')
        .values({ name: `Bench park ${TAG}`, merchant_id: merchant })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    const model = (
      await db
        .insertInto('card_model')
        .values({ name: `Bench card ${TAG}`, price: 19800 })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    const password = 'Bench@' + randomBytes(6).toString('hex');
    const mobile = `136${String(parseInt(TAG, 16)).padStart(8, '0')}`;
    const checker = (
      await db
        .insertInto('checker')
        .values({
          mobile,
          password_hash: await hashPassword(password),
          name: 'Bench verifier',
          merchant_id: merchant,
          shop_id: shop,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    // 2 × SPOTS spots, each its own resource with a rule of the model; the second half with a capacity.
    const skus: number[] = [];
    for (let i = 0; i < 2 * SPOTS; i++) {
      const spu = (
        await db
          .insertInto('spu')
          .values({ name: `Bench peak ${i} ${TAG}`, shop_id: shop, merchant_id: merchant, resource_type: 2 })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      const sku = (
        await db
          .insertInto('sku')
          .values({ goods_id: spu, merchant_id: merchant, shop_id: shop, sku_name: `Bench peak entry ${i} ${TAG}` })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      await db
        .insertInto('card_model_resource_rule')
        .values({ card_model_id: model, resource_id: spu, settlement_way: 1, buy_price: 5000, daily_check_limit: 1 })
        .execute();
      await db
        .insertInto('checker_relation')
        .values({ checker_id: checker, sku_id: sku, entrance_id: null, merchant_id: merchant, shop_id: shop })
        .execute();
      skus.push(sku);
    }
    const plain = skus.slice(0, SPOTS);
    const bounded = skus.slice(SPOTS);
    for (const sku of bounded) {
      await db
        .insertInto('spot_capacity')
        .values({ sku_id: sku, merchant_id: merchant, shop_id: shop, daily_capacity: CAPACITY })
        .execute();
      await db
        .insertInto('spot_capacity_slot')
        .values({ sku_id: sku, start_minute: 0, end_minute: 1440, capacity: CAPACITY })
        .execute();
    }
    await sql`insert into card (card_number, card_model_id, status, medium, active_time, expire_time)
      select ${`K${TAG}`} || lpad(g::text, 9, '0'), ${model}, 2, 2, now() - interval '1 day', now() + interval '300 days'
      from generate_series(1, ${CARDS}) g`.execute(db);
    await sql`insert into card_binding (card_id, name, phone, id_type, id_no)
      select id, 'Holder ' || id, '139' || lpad(id::text, 8, '0'), 1, 'ID' || id from card where card_model_id = ${model}`.execute(
      db,
    );
    await sql`analyze`.execute(db);

    const store = await openStore(cfg.redisUrl, cfg.storePrefix);
    const app = await buildApp({ config: cfg, database, store, logger: false });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const login = await fetch(`${url}/app-api/auth/checkerLogin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mobile, password }),
      }).then((r) => r.json() as Promise<{ errcode: number; data: { accessToken: string } }>);
      if (login.errcode !== 0) throw new Error('bench verifier login failed');
      const token = login.data.accessToken;

      let cursor = 0;
      const httpRun = (spots: number[], seconds: number): Promise<Run> => {
        const maxCards = Math.min(CARDS - cursor, Math.ceil(seconds * HTTP_CARDS_PER_S));
        const job = {
          url,
          token,
          skuId: spots[0],
          skuIds: spots,
          entranceId: 0,
          cardPrefix: `K${TAG}`,
          firstCard: cursor + 1,
          maxCards,
          connections: CONNECTIONS,
          seconds,
        };
        cursor += maxCards;
        return runLoadProcess<Run>('checkin-load.ts', job);
      };
      await httpRun(plain, 2);
      await httpRun(bounded, 2);
      const runs = { plain: [] as Run[], bounded: [] as Run[] };
      for (let r = 0; r < ROUNDS; r++) {
        // alternate which side goes first, so drift of the shared machine falls on both
        const order = r % 2 ? (['bounded', 'plain'] as const) : (['plain', 'bounded'] as const);
        for (const side of order)
          runs[side].push(await httpRun(side === 'plain' ? plain : bounded, DURATION_S / ROUNDS));
      }
      const rate = (rs: Run[]) => rs.reduce((n, r) => n + r.ok, 0) / rs.reduce((n, r) => n + r.seconds, 0);
      const refused = [...runs.plain, ...runs.bounded].reduce((n, r) => n + r.done - r.ok, 0);

      // Exactness: each bounded spot's day and slot counters hold its records' entries.
      const off = await sql<{ n: number }>`
        select count(*)::int as n from spot_admission_count a
        where a.sku_id in (${sql.join(bounded)})
          and a.admitted <> (select coalesce(sum(k.consume_num), 0) from card_check k
            where k.sku_id = a.sku_id and k.check_date = a.check_date and not k.is_deleted)`.execute(db);
      const counted = await sql<{ n: number }>`
        select count(*)::int as n from spot_admission_count where sku_id in (${sql.join(bounded)})`.execute(db);
      const ratio = rate(runs.bounded) / rate(runs.plain);
      console.log(
        `capacity at check-in: postgres, ${store.kind} store, pool ${POOL}, ${CONNECTIONS} HTTP connections, ` +
          `${SPOTS} spots a side, ${DURATION_S} s a side in ${ROUNDS} alternating rounds (${refused} refused)`,
      );
      console.log(
        `  POST addCheckerConsumeRecord, spots without capacity  ${rate(runs.plain).toFixed(0).padStart(6)} check-ins/s`,
      );
      console.log(
        `  POST addCheckerConsumeRecord, spots with day + slot capacity ${rate(runs.bounded).toFixed(0).padStart(6)} check-ins/s   ratio ${ratio.toFixed(2)}`,
      );
      console.log(`  counters checked against the records: ${counted.rows[0].n}, off: ${off.rows[0].n}`);
      report({
        goal: 'spot counters off their records after the load',
        value: off.rows[0].n,
        unit: 'counters',
        target: '0 (the capacity exact)',
        met: off.rows[0].n === 0 && counted.rows[0].n > 0,
        database: 'postgres',
      });
      report({
        goal: 'check-ins over HTTP with spot capacity enforced',
        value: rate(runs.bounded),
        unit: 'check-ins/s',
        baseline: { name: 'spots without capacity', value: rate(runs.plain) },
        ratio,
        target: '≥ 0.9 of the rate without capacity (cost ≤ 10%)',
        met: ratio >= 0.9,
        database: 'postgres',
      });
      if (off.rows[0].n !== 0) process.exitCode = 1;
    } finally {
      await app.close();
      await store.close();
    }
  } finally {
    await database?.close();
    await scratch.drop();
  }
}

try {
  await main();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await deleteRedisKeys(process.env.REDIS_URL, storePrefix);
}
