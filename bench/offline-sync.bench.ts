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
 * BENCH_SYNC_SCANS (50,000), BENCH_SYNC_GATES (20), BENCH_SYNC_BATCH (500), BENCH_ONLINE_SAMPLE (4,000),
 * BENCH_POOL (20), BENCH_KEEP (keep the scratch database to look into).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openDatabase, type Database } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { seedReferenceData } from '../src/seed/reference.js';
import { openStore } from '../src/platform/store/index.js';
import { TokenService } from '../src/platform/auth/tokens.js';
import { loadCheckerAccount } from '../src/modules/checker/checker-login.repository.js';
import { formatDateTime } from '../src/platform/time.js';
import { report } from './report.js';
import { scratchDatabase } from './bench-app.js';
import { benchStorePrefix, deleteRedisKeys } from '../test/helpers/redis-keys.js';

const SCANS = Number(process.env.BENCH_SYNC_SCANS ?? 50_000);
const GATES = Number(process.env.BENCH_SYNC_GATES ?? 20);
const BATCH = Number(process.env.BENCH_SYNC_BATCH ?? 500);
const ONLINE_SAMPLE = Number(process.env.BENCH_ONLINE_SAMPLE ?? 4_000);
const POOL = Number(process.env.BENCH_POOL ?? 20);
/** One scan in a hundred re-admits a card another gate admitted: a conflict. */
const CONFLICT_EVERY = 100;

const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) {
  console.log('offline-sync bench: set DATABASE_URL to a PostgreSQL database (REDIS_URL optional); nothing measured.');
  process.exit(0);
}
const TAG = randomBytes(2).toString('hex').toUpperCase();
const cardNumber = (serial: number) => `S${TAG}${String(serial).padStart(9, '0')}`;
const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-sync-'));
const storePrefix = benchStorePrefix();
const config = (databaseUrl: string) =>
  loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    STORE_PREFIX: storePrefix,
  });
process.env.TZ = config(baseUrl).tz;

const agent = new http.Agent({ keepAlive: true, maxSockets: GATES * 2 });
function post(base: string, pathname: string, token: string, body: unknown): Promise<{ errcode: number; data?: any }> {
  const payload = Buffer.from(JSON.stringify(body));
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: pathname,
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * What the scratch database's client backends were doing while `work` ran, sampled every 50 ms:
 * running (CPU) or the wait they were in (a WAL flush, a lock); tells a rate bound by commits from one
 * bound by work.
 */
async function backendStates<T>(database: string, work: () => Promise<T>): Promise<{ result: T; states: string }> {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: withDatabase(baseUrl!, 'postgres') });
  await c.connect();
  const states = new Map<string, number>();
  let running = true;
  const sampling = (async () => {
    while (running) {
      const r = await c.query<{ s: string }>(
        `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as s from pg_stat_activity
        where datname = $1 and state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid()`,
        [database],
      );
      for (const { s } of r.rows) states.set(s, (states.get(s) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    return { result: await work(), states: shares(states) };
  } finally {
    running = false;
    await sampling;
    await c.end();
  }
}

function shares(states: Map<string, number>): string {
  const total = [...states.values()].reduce((a, b) => a + b, 0) || 1;
  return [...states]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([k, n]) => `${k} ${((100 * n) / total).toFixed(0)}%`)
    .join(', ');
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase(withDatabase(baseUrl!, 'postgres'));
  let database: Database | null = null;
  try {
    const cfg = config(scratch.url);
    database = openDatabase({ databaseUrl: cfg.databaseUrl, dataDir, tz: cfg.tz, poolMax: POOL });
    const db = database.db;
    await migrateToLatest(db);
    await seedReferenceData(db, {
      adminUsername: 'admin',
      adminPassword: randomBytes(9).toString('hex'),
      openApp: null,
    });

    // One scenic spot with 20 gates, a verifier posted at each; cards allowing one entry a day.
    const one = async <T>(q: { executeTakeFirstOrThrow(): Promise<T> }) => q.executeTakeFirstOrThrow();
    const merchant = (
      await one(
        db
          .insertInto('merchant')
          .values({ name: `Sync co. ${TAG}` })
          .returning('id'),
      )
    ).id;
    const shop = (
      await one(
        db
          .insertInto('shop')
          .values({ name: `Sync spot ${TAG}`, merchant_id: merchant })
          .returning('id'),
      )
    ).id;
    const spu = (
      await one(
        db
          .insertInto('spu')
          .values({ name: `Mountain ${TAG}`, shop_id: shop, merchant_id: merchant, resource_type: 2 })
          .returning('id'),
      )
    ).id;
    const sku = (
      await one(
        db
          .insertInto('sku')
          .values({ goods_id: spu, merchant_id: merchant, shop_id: shop, sku_name: `Mountain entry ${TAG}` })
          .returning('id'),
      )
    ).id;
    const model = (
      await one(
        db
          .insertInto('card_model')
          .values({ name: `Sync card ${TAG}`, price: 19800 })
          .returning('id'),
      )
    ).id;
    await db
      .insertInto('card_model_resource_rule')
      .values({ card_model_id: model, resource_id: spu, settlement_way: 1, buy_price: 5000, daily_check_limit: 1 })
      .execute();
    const cards = SCANS + ONLINE_SAMPLE;
    await sql`insert into card (card_number, card_model_id, status, medium, active_time, expire_time)
      select ${`S${TAG}`} || lpad(g::text, 9, '0'), ${model}, 2, 2, now() - interval '5 days', now() + interval '300 days'
      from generate_series(1, ${cards}) g`.execute(db);
    await sql`insert into card_binding (card_id, name, phone, id_type, id_no)
      select id, 'Holder ' || id, '139' || lpad(id::text, 8, '0'), 1, 'ID' || id from card where card_model_id = ${model}`.execute(
      db,
    );

    const store = await openStore(cfg.redisUrl, cfg.storePrefix);
    const tokens = new TokenService(db, store, { accessS: 3600, refreshS: 7200 });
    const gates: Array<{ gate: number; token: string }> = [];
    for (let g = 0; g < GATES; g++) {
      const gate = (
        await one(
          db
            .insertInto('sku_entrance')
            .values({
              sku_id: sku,
              entrance_name: `Gate ${g + 1}`,
              merchant_id: merchant,
              shop_id: shop,
              goods_id: spu,
            })
            .returning('id'),
        )
      ).id;
      const checker = (
        await one(
          db
            .insertInto('checker')
            .values({
              mobile: `136${String(parseInt(TAG, 16) * 100 + g).padStart(8, '0')}`,
              password_hash: 'x',
              name: `Gate ${g + 1} verifier`,
              merchant_id: merchant,
              shop_id: shop,
            })
            .returning('id'),
        )
      ).id;
      await db
        .insertInto('checker_relation')
        .values({ checker_id: checker, sku_id: sku, entrance_id: gate, merchant_id: merchant, shop_id: shop })
        .execute();
      const account = (await loadCheckerAccount(db, checker))!;
      const issued = await tokens.issue(db, account, 'app', null);
      await tokens.remember(issued, account, 'app');
      gates.push({ gate, token: issued.accessToken });
    }
    await sql`analyze`.execute(db);

    const app = await buildApp({ config: cfg, database, store, logger: false });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });

    // Yesterday 08:00–18:00: scan i at its share of the day. Gate g makes scans g, g+20, g+40 …
    // Every hundredth scan takes the card of the scan before it (made at another gate): a conflict.
    const opening = new Date();
    opening.setDate(opening.getDate() - 1);
    opening.setHours(8, 0, 0, 0);
    const spanMs = 10 * 3_600_000;
    const scanOf = (i: number) => ({
      nonce: `sync-${TAG}-${i}`,
      cardNumber: cardNumber(i % CONFLICT_EVERY === CONFLICT_EVERY - 1 ? i : i + 1),
      skuId: sku,
      entranceId: gates[i % GATES].gate,
      checkTime: formatDateTime(new Date(opening.getTime() + Math.floor((i * spanMs) / SCANS)))!,
    });
    const results = new Map<string, number>();
    let failed = 0;
    const started = performance.now();
    const perRequestMs: number[] = [];
    const { states: syncStates } = await backendStates(scratch.name, () =>
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
    const { states: onlineStates } = await backendStates(scratch.name, () =>
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
    console.log(`  the database's active backends, sampled every 50 ms: upload ${syncStates}; online ${onlineStates}`);
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
  } finally {
    await database?.close();
    if (process.env.BENCH_KEEP) {
      console.log(`  (scratch database ${scratch.name} kept)`);
      await scratch.keep();
    } else await scratch.drop();
  }
}

try {
  await main();
} finally {
  agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
  await deleteRedisKeys(process.env.REDIS_URL, storePrefix);
}
