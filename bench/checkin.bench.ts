/**
 * Check-in at the gate on PostgreSQL (DATABASE_URL; REDIS_URL optional), two figures, no assertions:
 *
 * 1. Sustained check-ins per second, every scan a different card so each one passes the limit of 1 that
 *    is enforced (the counter upsert runs on every scan), against a bare INSERT of the same rows into
 *    card_check over the same pool in the same run (targets ≥ 2,000/s and ≥ 0.3 of the bare rate):
 *    - the check-in service as the route calls it (read, counter + check + operation-log write, answer);
 *    - the whole service over HTTP (token, validation, the same work, the envelope), with the load sent
 *      from a process of its own (bench/checkin-load.ts), as scanners are other machines.
 *    Measured in a scratch database made beside DATABASE_URL's and dropped afterwards; with
 *    CHECKIN_BENCH_IN_PLACE=1 in DATABASE_URL's own database instead (bench/scale.bench.ts: the rate on
 *    a big data set), where its bench merchant, cards and check-ins are left (their names carry a tag
 *    of the run, so runs do not collide).
 * 2. p50/p99 of cardCheckStat on the demo data set in DATABASE_URL's own database (make one with
 *    `npm run seed -- --scale 10M`; target p99 ≤ 50 ms): the service on the busiest SKU-day of the set
 *    (its clock set to that day's closing) against the raw SQL count of the same rows, and the HTTP
 *    endpoint for today. Skipped, with a note, when that database holds no demo data.
 *
 * BENCH_DURATION_S (10), BENCH_ROUNDS (2), BENCH_CONNECTIONS (32), BENCH_POOL (20), BENCH_STAT_CALLS (1000),
 * BENCH_CHECKIN_CARDS (250,000),
 * BENCH_PARTS (throughput,stat), BENCH_KEEP (keep the scratch database to look into),
 * BENCH_CPU_PROF=DIR (a CPU profile of this process for each measured round, bare, direct and http,
 * bench/profile.ts: the service answers HTTP in this process, so the http profile is the service's).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/platform/db/database.js';
import { openStore } from '../src/platform/store/index.js';
import { DEMO_PASSWORD, DEMO_VERIFIER_MOBILE } from '../src/seed/demo/constants.js';
import { createConsumeRecordService } from '../src/modules/checker/consume-record.service.js';
import { createCheckinService } from '../src/modules/checker/checkin.service.js';
import type { AuthedContext } from '../src/platform/http/context.js';
import { report } from './report.js';
import { runLoadProcess } from './load-process.js';
import * as world from './checkin-world.js';
import { backendStates, shares } from './backend-states.js';
import { jsonCall } from './json-call.js';
import { profiled } from './profile.js';
import { benchStorePrefix, deleteRedisKeys } from '../test/helpers/redis-keys.js';

const { durationS: DURATION_S, rounds: ROUNDS, connections: CONNECTIONS, pool: POOL } = world.loadKnobs;
const STAT_CALLS = Number(process.env.BENCH_STAT_CALLS ?? 1000);
/**
 * Cards for the scans, each scan its own (BENCH_CHECKIN_CARDS; making them and their bindings is most
 * of the bench's set-up time).
 */
const CARDS = Number(process.env.BENCH_CHECKIN_CARDS ?? 250_000);
/**
 * Cards of the bare rows after those, gone round again and again (a plain INSERT checks no limit): a
 * scan never takes one, as a card's day counter starts from the day's records.
 */
const BARE_CARDS = 20_000;

const baseUrl = world.benchServerUrl('checkin', { redisOptional: true });
const IN_PLACE = process.env.CHECKIN_BENCH_IN_PLACE === '1';
/** This run's tag in the fixture's unique names (card numbers, the verifier's mobile). */
const TAG = randomBytes(2).toString('hex').toUpperCase();
const cardNumber = (serial: number) => `B${TAG}${String(serial).padStart(9, '0')}`;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-checkin-'));
const storePrefix = benchStorePrefix();
const config = world.checkinBenchConfig({ baseUrl, dataDir, storePrefix, loginRatePerMin: 1000 });

/** Keep-alive HTTP calls; answers the envelope. */
const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
const call = jsonCall(agent);

/** Runs `work(i)` on `workers` loops for `seconds`; answers how many completed and how many returned true. */
async function sustain(
  workers: number,
  seconds: number,
  work: (i: number) => Promise<boolean>,
): Promise<{ done: number; ok: number; seconds: number }> {
  let next = 0;
  let ok = 0;
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) {
        if (await work(next++)) ok++;
      }
    }),
  );
  if (process.env.BENCH_VERBOSE)
    console.log(
      `    (${next} calls in ${seconds} s, event loop busy ${(performance.eventLoopUtilization(elu).utilization * 100).toFixed(0)}%)`,
    );
  return { done: next, ok, seconds: (performance.now() - started) / 1000 };
}

type Run = world.LoadRun;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// ---------------------------------------------------------------- 1. throughput in a scratch database
async function throughput(): Promise<void> {
  await world.withScratchWorld(
    { baseUrl, config, pool: POOL, inPlace: IN_PLACE, keep: Boolean(process.env.BENCH_KEEP) },
    async ({ name: databaseName, cfg, database, db }) => {
      const owner = await world.makeOwner(db, { merchant: `Bench scenic co. ${TAG}`, shop: `Bench spot ${TAG}` });
      const { merchant, shop } = owner;
      const {
        spu,
        sku,
        gates: [gate],
      } = await world.makeSpot(db, owner, {
        resource: `Bench lake ${TAG}`,
        entry: `Bench lake entry ${TAG}`,
        gates: ['North gate'],
      });
      const model = await world.makeCardModel(db, `Bench card ${TAG}`, [spu], 1);
      const password = 'Bench@' + randomBytes(6).toString('hex');
      const mobile = `137${String(parseInt(TAG, 16)).padStart(8, '0')}`;
      const checker = await world.makeVerifier(db, owner, {
        mobile,
        name: 'Bench verifier',
        password,
        posts: [{ sku, entrance: null }],
      });
      await world.makeBoundCards(db, { model, prefix: `B${TAG}`, count: CARDS + BARE_CARDS, activeDays: 1 });
      // In place, the big tables' statistics stand; the bench's rows are a sliver of them.
      if (IN_PLACE) await sql`analyze card_binding`.execute(db);
      else await sql`analyze`.execute(db);
      const firstCard = Number(
        (await sql<{ id: number }>`select min(id) as id from card where card_model_id = ${model}`.execute(db)).rows[0]
          .id,
      );

      const store = await openStore(cfg.redisUrl, cfg.storePrefix);
      const app = await buildApp({ config: cfg, database, store, logger: false });
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const token = await world.loginVerifier(url, mobile, password);

      // Each scan takes the next card: every check-in passes the enforced limit of 1. The bare rows go
      // round cards of their own (at ~10k bare rows/s on a fast disk, taking the next card as well
      // left the scans short of cards and failed the default run).
      let cursor = 0;
      let bareRows = 0;
      const takeCard = () => {
        if (cursor >= CARDS) throw new Error('out of bench cards: lower BENCH_DURATION_S or raise CARDS');
        return cursor++;
      };
      const today = new Date();
      const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
      const bare = () => {
        const n = bareRows++;
        const cardId = firstCard + CARDS + (n % BARE_CARDS);
        return sql`insert into card_check (card_id, card_model_id, sku_id, resource_id, entrance_id, checker_id, tourist_name, tourist_mobile,
          tourist_card_no, tourist_face_photo, consume_num, check_type, status, check_time, check_date, nonce, checks_left, created_by, updated_by)
        values (${cardId}, ${model}, ${sku}, ${spu}, ${gate}, ${checker}, ${`Holder ${cardId}`}, ${'13900000000'}, ${`ID${cardId}`}, ${null},
          1, 1, 1, ${new Date()}, ${day}::date, ${`bare-${n}`}, 0, ${checker}, ${checker})`
          .execute(db)
          .then(() => true);
      };
      // HTTP scans come from a process of its own; each run takes the next block of cards.
      const httpRun = async (seconds: number): Promise<Run> => {
        const firstCard = cursor + 1;
        const maxCards = Math.min(CARDS - cursor, Math.ceil(seconds * world.HTTP_CARDS_PER_S));
        cursor += maxCards;
        const job = {
          url,
          token,
          skuId: sku,
          entranceId: gate,
          cardPrefix: `B${TAG}`,
          firstCard,
          maxCards,
          connections: CONNECTIONS,
          seconds,
        };
        return runLoadProcess<Run>('checkin-load.ts', job);
      };

      // The same scan without HTTP: the service as the route calls it, with the verifier's session.
      const service = createCheckinService({ db, face: null as never });
      const account = {
        id: checker,
        kind: 'checker' as const,
        name: 'Bench verifier',
        userType: null,
        merchantId: merchant,
        shopId: shop,
        permissions: [],
      };
      const direct = () => {
        const n = takeCard();
        const ctx: AuthedContext = {
          account,
          tokenHash: 'bench',
          sessionId: 'bench',
          channel: 'app',
          ip: '127.0.0.1',
          userAgent: 'bench',
          method: 'POST',
          path: '/app-api/checker/addCheckerConsumeRecord',
          startedAt: Date.now(),
          operation: { module: '核销记录', action: '核销' },
          operationLog: 'none',
        };
        return service
          .checkIn(ctx, {
            skuId: sku,
            entranceId: gate,
            cardNumber: cardNumber(n + 1),
            nonce: `direct-${n}`,
          })
          .then(() => true);
      };

      // Warm up every path, then alternate rounds so drift of the shared machine falls on all of them.
      await sustain(POOL, 2, bare);
      await sustain(POOL, 2, direct);
      await httpRun(2);
      const runs = { bare: [] as Run[], direct: [] as Run[], checkin: [] as Run[] };
      const waits = {
        bare: new Map<string, number>(),
        direct: new Map<string, number>(),
        checkin: new Map<string, number>(),
      };
      const measured = async (kind: keyof typeof runs, work: () => Promise<Run>) => {
        const { result, states } = await backendStates(world.withDatabase(baseUrl, 'postgres'), databaseName, work);
        runs[kind].push(result);
        for (const [k, n] of states) waits[kind].set(k, (waits[kind].get(k) ?? 0) + n);
      };
      for (let r = 0; r < ROUNDS; r++) {
        await measured('bare', () => profiled(`bare-${r}`, () => sustain(POOL, DURATION_S / ROUNDS, bare)));
        await measured('direct', () => profiled(`direct-${r}`, () => sustain(POOL, DURATION_S / ROUNDS, direct)));
        await measured('checkin', () => profiled(`http-${r}`, () => httpRun(DURATION_S / ROUNDS)));
      }
      const rate = (rs: Run[]) => rs.reduce((n, r) => n + r.ok, 0) / rs.reduce((n, r) => n + r.seconds, 0);
      const refused = [...runs.checkin, ...runs.direct].reduce((n, r) => n + r.done - r.ok, 0);

      // Exactness under load: no card has more than its one entry today.
      const over = await sql<{
        n: number;
      }>`select count(*)::int as n from (select card_id from card_check where check_date = ${day}::date
      and checker_id = ${checker} and nonce not like 'bare-%' group by card_id having sum(consume_num) > 1) x`.execute(
        db,
      );
      console.log(
        `check-in throughput: postgres database, ${store.kind} store, pool ${POOL}, ${CONNECTIONS} HTTP connections, ` +
          `${DURATION_S} s each in ${ROUNDS} alternating rounds (${refused} refused; ${over.rows[0].n} cards over their limit)`,
      );
      console.log(
        `  bare INSERT into card_check (same rows, same pool)                ${rate(runs.bare).toFixed(0).padStart(6)} rows/s`,
      );
      console.log(
        `  check-in service, limit 1 enforced (no HTTP)                      ${rate(runs.direct).toFixed(0).padStart(6)} check-ins/s   ratio ${(rate(runs.direct) / rate(runs.bare)).toFixed(2)}`,
      );
      console.log(
        `  POST addCheckerConsumeRecord over HTTP (load from another process)  ${rate(runs.checkin).toFixed(0).padStart(6)} check-ins/s   ratio ${(rate(runs.checkin) / rate(runs.bare)).toFixed(2)}`,
      );
      console.log('  (targets ≥ 2000 check-ins/s and a ratio ≥ 0.3 of the bare rate)');
      console.log("  the database's active backends, sampled every 50 ms (running or the wait they were in):");
      for (const [kind, label] of [
        ['bare', 'bare INSERT'],
        ['direct', 'service'],
        ['checkin', 'over HTTP'],
      ] as const)
        console.log(`    ${label.padEnd(12)} ${shares(waits[kind])}`);
      report({
        goal: 'cards over their daily limit after the load',
        value: over.rows[0].n,
        unit: 'cards',
        target: '0 (the limit exact)',
        met: over.rows[0].n === 0,
        database: 'postgres',
      });
      if (over.rows[0].n !== 0) process.exitCode = 1;
      report({
        goal: 'check-ins over HTTP, daily limit enforced',
        value: rate(runs.checkin),
        unit: 'check-ins/s',
        baseline: { name: 'bare INSERT', value: rate(runs.bare) },
        ratio: rate(runs.checkin) / rate(runs.bare),
        target: '≥ 2,000/s and ≥ 0.3 of bare',
        met: rate(runs.checkin) >= 2000 && rate(runs.checkin) / rate(runs.bare) >= 0.3,
        database: 'postgres',
      });
      await app.close();
      await store.close();
    },
  );
}

// ---------------------------------------------------------------- 2. cardCheckStat on the demo data set
async function statOnDemo(): Promise<void> {
  const cfg = config(baseUrl);
  const database = openDatabase({ databaseUrl: cfg.databaseUrl, dataDir, tz: cfg.tz, poolMax: 4 });
  const db = database.db;
  try {
    const demo = await db
      .selectFrom('demo_dataset')
      .select(['check_rows', 'scale'])
      .executeTakeFirst()
      .catch(() => undefined);
    if (!demo) {
      console.log(
        'cardCheckStat: DATABASE_URL holds no demo data set; make one with `npm run seed -- --scale 10M` and run again.',
      );
      return;
    }
    const time = async (f: () => Promise<unknown>) => {
      for (let i = 0; i < Math.min(50, STAT_CALLS); i++) await f();
      const ms: number[] = [];
      for (let i = 0; i < STAT_CALLS; i++) {
        const t0 = performance.now();
        await f();
        ms.push(performance.now() - t0);
      }
      return ms.sort((a, b) => a - b);
    };
    const line = (name: string, ms: number[]) =>
      console.log(
        `  ${name.padEnd(52)} p50 ${percentile(ms, 50).toFixed(2)} ms   p99 ${percentile(ms, 99).toFixed(2)} ms`,
      );
    const rawCount = (checkerId: number, skuId: number, start: Date, end: Date) => () =>
      sql`select count(distinct card_id), count(*), count(*) filter (where checker_id = ${checkerId}) from card_check
        where sku_id = ${skuId} and check_time >= ${start} and check_time < ${end} and not is_deleted`.execute(db);

    // The worst day of the data set: the SKU and day with the most checks, judged at that day's closing.
    const busiest = (
      await sql<{ sku_id: number; check_date: string; n: number }>`select sku_id, check_date, count(*)::int as n
      from card_check group by 1, 2 order by 3 desc limit 1`.execute(db)
    ).rows[0];
    const relation = await db
      .selectFrom('checker_relation')
      .select('checker_id')
      .where('sku_id', '=', busiest.sku_id)
      .limit(1)
      .executeTakeFirstOrThrow();
    const start = new Date(`${busiest.check_date}T00:00:00`);
    const end = new Date(start);
    end.setDate(end.getDate() + 1);
    const closing = new Date(`${busiest.check_date}T18:00:00`);
    const service = createConsumeRecordService({ db, now: () => closing });
    const ctx = {
      account: {
        id: relation.checker_id,
        kind: 'checker',
        name: 'bench',
        userType: null,
        merchantId: null,
        shopId: null,
        permissions: [],
      },
    } as unknown as AuthedContext;
    const figures = await service.stat(ctx, busiest.sku_id);
    console.log(
      `cardCheckStat on the demo data set (${demo.check_rows} check rows, scale ${demo.scale}), ${STAT_CALLS} sequential calls each`,
    );
    console.log(
      `  the busiest SKU-day: SKU ${busiest.sku_id} on ${busiest.check_date}, ${busiest.n} checks → ${JSON.stringify(figures)}`,
    );
    const rawBusy = await time(rawCount(relation.checker_id, busiest.sku_id, start, end));
    const svcBusy = await time(() => service.stat(ctx, busiest.sku_id));
    line('raw SQL count (same statement)', rawBusy);
    line("cardCheckStat service (clock at that day's closing)", svcBusy);

    // Today through HTTP, as the demo verifier's app calls it.
    const store = await openStore(cfg.redisUrl, cfg.storePrefix);
    const app = await buildApp({ config: cfg, database, store, logger: false });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const login = await call(url, 'POST', '/app-api/auth/checkerLogin', null, {
        mobile: DEMO_VERIFIER_MOBILE,
        password: DEMO_PASSWORD,
      });
      if (login.errcode !== 0) throw new Error('demo verifier login failed');
      const token = login.data.accessToken as string;
      const skuId = (login.data.skuInfo as Array<{ id: number }>)[0].id;
      const endpoint = () => call(url, 'GET', `/app-api/checker/cardCheckStat?skuId=${skuId}`, token);
      const today = await endpoint();
      if (today.errcode !== 0) throw new Error(`cardCheckStat failed: ${JSON.stringify(today)}`);
      const apiMs = await time(endpoint);
      line(`GET cardCheckStat today, SKU ${skuId} → ${today.data.dayCardCheckCnt} checks`, apiMs);
    } finally {
      await app.close();
      await store.close();
    }
    console.log(
      `  ratio service/raw p99 on the busiest day: ${(percentile(svcBusy, 99) / percentile(rawBusy, 99)).toFixed(2)}   (target p99 ≤ 50 ms)`,
    );
    report({
      goal: 'cardCheckStat p99, busiest day',
      value: percentile(svcBusy, 99),
      unit: 'ms',
      baseline: { name: 'raw SQL count p99', value: percentile(rawBusy, 99) },
      ratio: percentile(svcBusy, 99) / percentile(rawBusy, 99),
      target: '≤ 50 ms',
      met: percentile(svcBusy, 99) <= 50,
      database: 'postgres',
    });
  } finally {
    await database.close();
  }
}

const PARTS = (process.env.BENCH_PARTS ?? 'throughput,stat').split(',');
try {
  if (PARTS.includes('throughput')) await throughput();
  if (PARTS.includes('stat')) await statOnDemo();
} finally {
  agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
  await deleteRedisKeys(process.env.REDIS_URL, storePrefix);
}
