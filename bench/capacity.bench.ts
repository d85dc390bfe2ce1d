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
import { buildApp } from '../src/app.js';
import { openStore } from '../src/platform/store/index.js';
import { report } from './report.js';
import { runLoadProcess } from './load-process.js';
import * as world from './checkin-world.js';
import { benchStorePrefix, deleteRedisKeys } from '../test/helpers/redis-keys.js';

const { durationS: DURATION_S, rounds: ROUNDS, connections: CONNECTIONS, pool: POOL } = world.loadKnobs;
const SPOTS = Number(process.env.BENCH_CAPACITY_SPOTS ?? 8);
const CARDS = Number(process.env.BENCH_CAPACITY_CARDS ?? 200_000);
const CAPACITY = 100_000_000;

const baseUrl = world.benchServerUrl('capacity', { redisOptional: true });
const TAG = randomBytes(2).toString('hex').toUpperCase();
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-capacity-'));
const storePrefix = benchStorePrefix();
const config = world.checkinBenchConfig({ baseUrl, dataDir, storePrefix, loginRatePerMin: 1000 });
type Run = world.LoadRun;

async function main(): Promise<void> {
  await world.withScratchWorld({ baseUrl, config, pool: POOL }, async ({ cfg, database, db }) => {
    const owner = await world.makeOwner(db, { merchant: `Bench scenic co. ${TAG}`, shop: `Bench park ${TAG}` });
    const { merchant, shop } = owner;
    // 2 × SPOTS spots, each its own resource with a rule of the model; the second half with a capacity.
    const spots = [];
    for (let i = 0; i < 2 * SPOTS; i++)
      spots.push(
        await world.makeSpot(db, owner, { resource: `Bench peak ${i} ${TAG}`, entry: `Bench peak entry ${i} ${TAG}` }),
      );
    const skus = spots.map((s) => s.sku);
    const model = await world.makeCardModel(
      db,
      `Bench card ${TAG}`,
      spots.map((s) => s.spu),
      1,
    );
    const password = 'Bench@' + randomBytes(6).toString('hex');
    const mobile = `136${String(parseInt(TAG, 16)).padStart(8, '0')}`;
    await world.makeVerifier(db, owner, {
      mobile,
      name: 'Bench verifier',
      password,
      posts: skus.map((sku) => ({ sku, entrance: null })),
    });
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
    await world.makeBoundCards(db, { model, prefix: `K${TAG}`, count: CARDS, activeDays: 1 });
    await sql`analyze`.execute(db);

    const store = await openStore(cfg.redisUrl, cfg.storePrefix);
    const app = await buildApp({ config: cfg, database, store, logger: false });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const token = await world.loginVerifier(url, mobile, password);

      let cursor = 0;
      const httpRun = (spots: number[], seconds: number): Promise<Run> => {
        const maxCards = Math.min(CARDS - cursor, Math.ceil(seconds * world.HTTP_CARDS_PER_S));
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
  });
}

try {
  await main();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await deleteRedisKeys(process.env.REDIS_URL, storePrefix);
}
