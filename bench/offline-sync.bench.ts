/**
 * The offline upload on PostgreSQL (DATABASE_URL; REDIS_URL optional), no assertions (issue 39, item 4):
 *
 * A day of 50,000 offline scans from 20 gates, each gate its own verifier uploading its own scans in
 * requests of 500 (syncOfflineChecks), the 20 gates at once, over HTTP; target ≤ 30 s. The scans are
 * of the day before, over opening hours, every gate's in time order; 1% of them re-admit a card
 * another gate admitted already (limit 1 a day), so they are recorded as conflicts.
 * Baseline in the same run: the online check-in rate (addCheckerConsumeRecord, one request per
 * scan) of the same 20 verifiers, 20 at once, over a sample of fresh cards; the ratio is the upload's
 * scans per second against it.
 *
 * Measured in a scratch database made beside DATABASE_URL's and dropped afterwards.
 * BENCH_SYNC_SCANS (50,000), BENCH_SYNC_HISTORY (10,000 scans of the day before, uploaded first), BENCH_SYNC_GATES (20), BENCH_SYNC_BATCH (500), BENCH_ONLINE_SAMPLE (4,000),
 * BENCH_POOL (20), BENCH_KEEP (keep the scratch database to look into).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { openStore } from '../src/platform/store/index.js';
import { formatDateTime } from '../src/platform/time.js';
import { report } from './report.js';
import * as world from './checkin-world.js';
import { backendStates, shares } from './backend-states.js';
import { jsonCall } from './json-call.js';
import { benchStorePrefix, deleteRedisKeys } from '../test/helpers/redis-keys.js';

const SCANS = Number(process.env.BENCH_SYNC_SCANS ?? 50_000);
/** Scans of the day before the measured day, uploaded first (history), not timed. */
const HISTORY = Number(process.env.BENCH_SYNC_HISTORY ?? 10_000);
const GATES = Number(process.env.BENCH_SYNC_GATES ?? 20);
const BATCH = Number(process.env.BENCH_SYNC_BATCH ?? 500);
const ONLINE_SAMPLE = Number(process.env.BENCH_ONLINE_SAMPLE ?? 4_000);
const POOL = world.loadKnobs.pool;
/** One scan in a hundred re-admits a card another gate admitted: a conflict. */
const CONFLICT_EVERY = 100;

const baseUrl = world.benchServerUrl('offline-sync', { redisOptional: true });
const TAG = randomBytes(2).toString('hex').toUpperCase();
const cardNumber = (serial: number) => `S${TAG}${String(serial).padStart(9, '0')}`;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-sync-'));
const storePrefix = benchStorePrefix();
const config = world.checkinBenchConfig({ baseUrl, dataDir, storePrefix });

const agent = new http.Agent({ keepAlive: true, maxSockets: GATES * 2 });
const call = jsonCall(agent);
const post = (base: string, pathname: string, token: string, body: unknown) =>
  call(base, 'POST', pathname, token, body);

async function main(): Promise<void> {
  await world.withScratchWorld(
    { baseUrl, config, pool: POOL, keep: Boolean(process.env.BENCH_KEEP) },
    async ({ name: databaseName, cfg, database, db }) => {
      // One scenic spot with 20 gates, a verifier posted at each; cards allowing one entry a day.
      const owner = await world.makeOwner(db, { merchant: `Sync co. ${TAG}`, shop: `Sync spot ${TAG}` });
      const {
        spu,
        sku,
        gates: gateIds,
      } = await world.makeSpot(db, owner, {
        resource: `Mountain ${TAG}`,
        entry: `Mountain entry ${TAG}`,
        gates: Array.from({ length: GATES }, (_, g) => `Gate ${g + 1}`),
      });
      const model = await world.makeCardModel(db, `Sync card ${TAG}`, [spu], 1);
      await world.makeBoundCards(db, { model, prefix: `S${TAG}`, count: SCANS + ONLINE_SAMPLE, activeDays: 5 });

      const store = await openStore(cfg.redisUrl, cfg.storePrefix);
      const gates: Array<{ gate: number; token: string }> = [];
      for (const [g, gate] of gateIds.entries()) {
        const checker = await world.makeVerifier(db, owner, {
          mobile: `136${String(parseInt(TAG, 16) * 100 + g).padStart(8, '0')}`,
          name: `Gate ${g + 1} verifier`,
          password: null,
          posts: [{ sku, entrance: gate }],
        });
        gates.push({ gate, token: await world.verifierToken(db, store, checker) });
      }

      const app = await buildApp({ config: cfg, database, store, logger: false });
      const url = await app.listen({ port: 0, host: '127.0.0.1' });

      // Yesterday 08:00–18:00: scan i at its share of the day. Gate g makes scans g, g+20, g+40 …
      // Every hundredth scan takes the card of the scan before it (made at another gate): a conflict.
      const openingOf = (daysAgo: number) => {
        const d = new Date();
        d.setDate(d.getDate() - daysAgo);
        d.setHours(8, 0, 0, 0);
        return d;
      };
      const spanMs = 10 * 3_600_000;
      const scanOf = (i: number, daysAgo = 1) => ({
        nonce: `sync-${TAG}-${daysAgo}-${i}`,
        cardNumber: cardNumber(i % CONFLICT_EVERY === CONFLICT_EVERY - 1 ? i : i + 1),
        skuId: sku,
        entranceId: gates[i % GATES].gate,
        checkTime: formatDateTime(new Date(openingOf(daysAgo).getTime() + Math.floor((i * spanMs) / SCANS)))!,
      });

      // A service that has run before: the day before, the gates uploaded a share of the same cards'
      // scans, and the tables have been analyzed since, as autovacuum does in service. Measured on empty
      // tables instead, the first plans of the scan statement (made while the nonce and check tables
      // are empty) scan them whole for the rest of the run (docs/adr/0106-offline-upload-judged-scan-by-scan.md).
      for (let k = 0; k < HISTORY; k += BATCH) {
        const g = (k / BATCH) % GATES;
        const scans = Array.from({ length: Math.min(BATCH, HISTORY - k) }, (_, j) => scanOf(k + j, 2));
        const res = await post(url, '/app-api/checker/syncOfflineChecks', gates[g].token, { scans });
        if (res.errcode !== 0) throw new Error(`history upload refused: ${JSON.stringify(res).slice(0, 200)}`);
      }
      await sql`analyze`.execute(db);
      const results = new Map<string, number>();
      let failed = 0;
      const started = performance.now();
      const perRequestMs: number[] = [];
      const { states: syncStates } = await backendStates(world.withDatabase(baseUrl, 'postgres'), databaseName, () =>
        Promise.all(
          gates.map(async ({ token }, g) => {
            const mine: ReturnType<typeof scanOf>[] = [];
            for (let i = g; i < SCANS; i += GATES) mine.push(scanOf(i));
            for (let k = 0; k < mine.length; k += BATCH) {
              const t0 = performance.now();
              const res = await post(url, '/app-api/checker/syncOfflineChecks', token, {
                scans: mine.slice(k, k + BATCH),
              });
              perRequestMs.push(performance.now() - t0);
              if (res.errcode !== 0) {
                failed++;
                console.log(`  gate ${g + 1}: ${JSON.stringify(res).slice(0, 200)}`);
                continue;
              }
              for (const r of res.data.results as Array<{ result: string }>)
                results.set(r.result, (results.get(r.result) ?? 0) + 1);
            }
          }),
        ),
      );
      const syncSeconds = (performance.now() - started) / 1000;

      // The baseline: online check-ins, one request per scan, the same 20 verifiers at once, fresh cards.
      let nextOnline = 0;
      let onlineOk = 0;
      const onlineStarted = performance.now();
      const { states: onlineStates } = await backendStates(world.withDatabase(baseUrl, 'postgres'), databaseName, () =>
        Promise.all(
          gates.map(async ({ gate, token }) => {
            for (let n = nextOnline++; n < ONLINE_SAMPLE; n = nextOnline++) {
              const res = await post(url, '/app-api/checker/addCheckerConsumeRecord', token, {
                skuId: sku,
                entranceId: gate,
                cardNumber: cardNumber(SCANS + n + 1),
                nonce: `online-${TAG}-${n}`,
              });
              if (res.errcode === 0) onlineOk++;
            }
          }),
        ),
      );
      const onlineRate = onlineOk / ((performance.now() - onlineStarted) / 1000);

      const stored = await sql<{ checks: number; conflicts: number }>`select
        (select count(*)::int from card_check where sku_id = ${sku} and nonce like ${`sync-${TAG}-%`}) as checks,
        (select count(*)::int from card_check_conflict where sku_id = ${sku}) as conflicts`.execute(db);
      const syncRate = SCANS / syncSeconds;
      perRequestMs.sort((a, b) => a - b);
      console.log(
        `offline upload: postgres database, ${store.kind} store, pool ${POOL}; ${SCANS} scans from ${GATES} gates in requests of ${BATCH}, the gates at once`,
      );
      console.log(
        `  answers ${JSON.stringify(Object.fromEntries(results))}, ${failed} requests failed; stored ${stored.rows[0].checks} checks, ${stored.rows[0].conflicts} conflicts`,
      );
      console.log(
        `  synced in ${syncSeconds.toFixed(1)} s = ${syncRate.toFixed(0)} scans/s; a request of ${BATCH}: median ${(perRequestMs[perRequestMs.length >> 1] / 1000).toFixed(2)} s`,
      );
      console.log(
        `  online check-ins (addCheckerConsumeRecord, ${GATES} at once, ${onlineOk} of ${ONLINE_SAMPLE}) ${onlineRate.toFixed(0)} check-ins/s; ratio ${(syncRate / onlineRate).toFixed(2)}`,
      );
      console.log(
        `  the database's active backends, sampled every 50 ms: upload ${shares(syncStates)}; online ${shares(onlineStates)}`,
      );
      const complete = failed === 0 && stored.rows[0].checks === SCANS;
      report({
        goal: `a day of ${SCANS.toLocaleString('en-US')} offline scans from ${GATES} gates synced`,
        value: syncSeconds,
        unit: 's',
        baseline: { name: 'online check-ins/s', value: onlineRate },
        ratio: syncRate / onlineRate,
        target: '≤ 30 s',
        met: complete && syncSeconds <= 30,
        database: 'postgres',
      });
      if (!complete) process.exitCode = 1;
      await app.close();
      await store.close();
    },
  );
}

try {
  await main();
} finally {
  agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
  await deleteRedisKeys(process.env.REDIS_URL, storePrefix);
}
