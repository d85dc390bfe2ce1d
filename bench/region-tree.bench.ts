/**
 * queryRegionTree through the whole service (auth, session lookup, cache, envelope, metrics) against
 * a bare Fastify route that sends the same bytes, both in this process, measured in this run.
 * Prints req/s, p99 and the ratio real/bare (target ≥ 0.7). No assertions on time.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { seedReferenceData, SUPER_ADMIN_ROLE } from '../src/seed/reference.js';
import { ensureRole, insertStaff } from '../src/modules/staff/bootstrap.repository.js';
import { hashPassword } from '../src/platform/auth/password.js';
import { openStore } from '../src/platform/store/index.js';
import { report } from './report.js';
import { benchStorePrefix, deleteRedisKeys } from '../test/helpers/redis-keys.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TREE = '/manage-api/region/queryRegionTree';

// Undone in reverse order at the end, whatever fails on the way: no data directory, server or
// Redis key outlives the run.
const cleanups: Array<() => unknown> = [];
try {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-tree-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const password = 'Bench@' + randomBytes(6).toString('hex');
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ADMIN_PASSWORD: password,
    STORE_PREFIX: benchStorePrefix(),
    LOGIN_RATE_PER_MIN: '1000',
  });
  process.env.TZ = config.tz;
  cleanups.push(() => deleteRedisKeys(config.redisUrl, config.storePrefix));

  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, tz: config.tz });
  cleanups.push(() => database.close());
  await migrateToLatest(database.db);
  const seeded = await seedReferenceData(database.db, {
    adminUsername: config.adminUsername,
    adminPassword: password,
    openApp: null,
  });
  // On a PostgreSQL database seeded before, the admin's password is not ours: log in as a bench user of the same role.
  let username = config.adminUsername;
  if (!seeded.admin) {
    username = `bench_${randomBytes(4).toString('hex')}`;
    const roleId = await ensureRole(database.db, SUPER_ADMIN_ROLE, 'Super administrator', ['*']);
    const benchUser = await insertStaff(
      database.db,
      {
        username,
        passwordHash: await hashPassword(password),
        nickname: username,
        userType: 1,
        merchantId: null,
        shopId: null,
      },
      [roleId],
    );
    // A super administrator left in somebody's database would outlive the bench: disabled and its
    // tokens removed at the end (its login log rows refer to it, so it is not deleted).
    cleanups.push(async () => {
      await database.db
        .deleteFrom('oauth2_token')
        .where('account_kind', '=', 'admin')
        .where('account_id', '=', benchUser)
        .execute();
      await database.db
        .updateTable('admin_user')
        .set({ status: 0, is_deleted: true })
        .where('id', '=', benchUser)
        .execute();
    });
  }
  const store = await openStore(config.redisUrl, config.storePrefix);
  cleanups.push(() => store.close());
  const app = await buildApp({ config, database, store, logger: false });
  cleanups.push(() => app.close());
  await app.ready();

  const img = await app.inject({ method: 'GET', url: '/manage-api/auth/getRandomCodeImg' });
  const uuid = String(img.headers['x-captcha-key']);
  const code = await store.get(`captcha:${uuid}`);
  const login = (
    await app.inject({ method: 'POST', url: '/manage-api/auth/login', payload: { username, password, code, uuid } })
  ).json();
  if (login.errcode !== 0) throw new Error(`login failed: ${login.errmsg}`);
  const authorization = `Bearer ${login.data.accessToken}`;

  const realUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const first = await fetch(realUrl + TREE, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: '{}',
  });
  const bodyText = await first.text();
  if (JSON.parse(bodyText).errcode !== 0) throw new Error('the tree call failed');

  const bodyBytes = Buffer.from(bodyText);
  const bare = Fastify({ logger: false });
  cleanups.push(() => bare.close());
  bare.post('/tree', (_req, reply) => {
    reply.type('application/json; charset=utf-8').send(bodyText);
  });
  // The service sends the cached tree as ready bytes; a string is re-encoded on every send (807 KiB of
  // mostly CJK text), so the same bytes as a Buffer are measured too, the stricter baseline.
  bare.post('/tree-bytes', (_req, reply) => {
    reply.type('application/json; charset=utf-8').send(bodyBytes);
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  for (const route of ['/tree', '/tree-bytes']) {
    const check = await (
      await fetch(bareUrl + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).text();
    if (check !== bodyText) throw new Error(`the bare route ${route} does not send the same bytes`);
  }

  type Target = { url: string; headers: Record<string, string> };
  type Figures = { rps: number; p99: number; p50: number };

  const options = (t: Target) => ({
    url: t.url,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', ...t.headers },
    body: '{}',
    connections: CONNECTIONS,
  });

  /**
   * Warms every target up, then measures them in alternating rounds (the machine's speed drifts, and
   * alternating spreads the drift over all of them); figures are request-weighted over the rounds.
   */
  async function measureAll(targets: Target[]): Promise<Figures[]> {
    for (const t of targets) await autocannon({ ...options(t), duration: WARMUP_S });
    const runs: Array<Array<{ requests: number; duration: number; p99: number; p50: number }>> = targets.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, t] of targets.entries()) {
        const r = await autocannon({ ...options(t), duration: DURATION_S / ROUNDS });
        if (r.errors || r.non2xx || r.timeouts)
          console.log(`  (warning: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts at ${t.url})`);
        runs[i].push({ requests: r.requests.total, duration: r.duration, p99: r.latency.p99, p50: r.latency.p50 });
      }
    }
    return runs.map((rs) => {
      const total = rs.reduce((n, r) => n + r.requests, 0);
      const weighted = (f: (r: (typeof rs)[number]) => number) => rs.reduce((n, r) => n + f(r) * r.requests, 0) / total;
      return {
        rps: total / rs.reduce((n, r) => n + r.duration, 0),
        p99: weighted((r) => r.p99),
        p50: weighted((r) => r.p50),
      };
    });
  }

  console.log(
    `region tree: ${database.kind} database, ${store.kind} store, body ${(Buffer.byteLength(bodyText) / 1024).toFixed(0)} KiB, ` +
      `${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s each in ${ROUNDS} alternating rounds`,
  );
  const [bareResult, bareBytesResult, realResult, brResult] = await measureAll([
    { url: bareUrl + '/tree', headers: {} },
    { url: bareUrl + '/tree-bytes', headers: {} },
    { url: realUrl + TREE, headers: { authorization } },
    { url: realUrl + TREE, headers: { authorization, 'accept-encoding': 'br' } },
  ]);
  const line = (name: string, r: Figures) =>
    console.log(
      `  ${name.padEnd(42)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms`,
    );
  line('bare Fastify, body as a string', bareResult);
  line('bare Fastify, body as a Buffer', bareBytesResult);
  line(`POST ${TREE}`, realResult);
  line(`POST ${TREE}, accept-encoding: br`, brResult);
  const ratio = (r: typeof realResult, b: typeof realResult) =>
    `${(r.rps / b.rps).toFixed(2)} req/s, p99 ${(r.p99 / b.p99).toFixed(2)}×`;
  console.log(`  ratio real/bare (string): ${ratio(realResult, bareResult)}   (target ≥ 0.7 req/s)`);
  console.log(`  ratio real/bare (Buffer): ${ratio(realResult, bareBytesResult)}`);
  console.log(`  ratio real with brotli/bare (string): ${ratio(brResult, bareResult)}`);
  report({
    goal: `authenticated cached read (region tree, ${database.kind}), req/s`,
    value: realResult.rps,
    unit: 'req/s',
    baseline: { name: 'bare Fastify route sending the bytes', value: bareBytesResult.rps },
    ratio: realResult.rps / bareBytesResult.rps,
    target: '≥ 0.5 of bare',
    met: realResult.rps / bareBytesResult.rps >= 0.5,
    database: database.kind,
  });
  report({
    goal: `authenticated cached read (region tree, ${database.kind}), p99`,
    value: realResult.p99,
    unit: 'ms',
    target: `≤ 10 ms at ${CONNECTIONS} connections`,
    met: realResult.p99 <= 10,
    database: database.kind,
  });
} finally {
  for (const undo of cleanups.reverse()) await undo();
}
