/**
 * Authenticated reads through the whole service (token, session, permission, validation, envelope,
 * metrics) against a bare Fastify route in a process of its own that answers the same bytes,
 * measured in this run with autocannon at BENCH_CONNECTIONS connections:
 * - cached reads: queryRegionPage, the area tree (target ≥ 0.5 of bare, p99 ≤ 10 ms at 50 connections);
 * - database reads: getRegion (target ≥ 0.3 of bare on PostgreSQL; on PGlite ≥ 0.6 of the raw PGlite
 *   query rate measured in this process, since the embedded database is the ceiling there).
 * DATABASE_URL / REDIS_URL choose the backends; BENCH_CPU_PROF=DIR profiles the service's measured runs
 * (bench/profile.ts). No assertions on time.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { seedReferenceData } from '../src/db/seed/reference.js';
import { openStore } from '../src/platform/store/index.js';
import { freePort } from '../test/helpers/free-port.js';
import { issuePlatformToken } from './bench-app.js';
import { report } from './report.js';
import { runLoadProcess } from './load-process.js';
import { profiled } from './profile.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-reads-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_PASSWORD: 'Bench@Reads2026', STORE_PREFIX: `bench:${randomBytes(4).toString('hex')}:` });
process.env.TZ = config.tz;
const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, tz: config.tz });
await migrateToLatest(database.db);
await seedReferenceData(database.db, { adminUsername: config.adminUsername, adminPassword: 'Bench@Reads2026', openApp: null });
const store = await openStore(config.redisUrl, config.storePrefix);
const app = await buildApp({ config, database, store, logger: false });
const token = await issuePlatformToken(database.db, store, ['region:read', 'area:read']);
const serviceUrl = await app.listen({ port: 0, host: '127.0.0.1' });

const regionId = (await database.db.selectFrom('region').select('id').where('level_type', '=', 3).orderBy('id').limit(1).executeTakeFirstOrThrow()).id;
const targets = [
  { name: 'queryRegionPage (cached)', path: '/manage-api/region/queryRegionPage', body: JSON.stringify({ pageNum: 1, pageSize: 10, levelType: 2 }), kind: 'cached' as const },
  // Uncompressed: autocannon slows several-fold on an encoded answer while the service idles (profiled),
  // so a compressed run measures the load generator. Compression is tested in test/platform/cached-reads.
  { name: 'area tree (cached)', path: '/manage-api/system/area/tree', body: '{}', kind: 'cached' as const, headers: undefined as Record<string, string> | undefined },
  { name: 'getRegion (database)', path: '/manage-api/region/getRegion', body: JSON.stringify({ id: regionId }), kind: 'database' as const },
];

// The bare route answers the very bytes of each real answer, with the same headers, from another
// process: the load generator's cost depends on them (it slows on a Content-Encoding, and decodes
// the region names' UTF-8 several times slower than ASCII filler of the same length).
const sizes: number[] = [];
const bodyFiles: string[] = [];
const headerSets: Array<Record<string, string>> = [];
for (const t of targets) {
  const res = await fetch(serviceUrl + t.path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-encoding': 'identity', ...(t.headers ?? {}) }, body: t.body });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${t.path} answered ${res.status}`);
  if (!t.headers && JSON.parse(bytes.toString()).errcode !== 0) throw new Error(`${t.path} refused: ${bytes.toString().slice(0, 200)}`);
  sizes.push(bytes.length);
  bodyFiles.push(path.join(dataDir, `bare-${sizes.length - 1}.json`));
  writeFileSync(bodyFiles[bodyFiles.length - 1], bytes);
  const kept: Record<string, string> = {};
  res.headers.forEach((v, k) => { if (!['date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) kept[k] = v; });
  headerSets.push(kept);
}
const barePort = await freePort();
const bareScript = `
  const app = require('fastify')({ logger: false });
  const bodyFiles = ${JSON.stringify(bodyFiles)};
  const headerSets = ${JSON.stringify(headerSets)};
  bodyFiles.forEach((f, i) => { const body = require('node:fs').readFileSync(f); app.post('/' + i, (_q, r) => { r.headers(headerSets[i]).send(body); }); });
  app.listen({ port: ${barePort}, host: '127.0.0.1' });`;
const bare = spawn(process.execPath, ['-e', bareScript], { cwd: path.resolve(import.meta.dirname, '..'), stdio: 'inherit' });
for (let i = 0; ; i++) {
  try {
    await fetch(`http://127.0.0.1:${barePort}/0`, { method: 'POST', body: '{}' });
    break;
  } catch {
    if (i > 200) throw new Error('the bare server did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A load run from a process of its own (bench/http-load.ts), as clients are other machines. */
async function load(url: string, body: string, headers: Record<string, string> = {}) {
  const job = { url, body, headers, connections: CONNECTIONS, seconds: DURATION_S };
  const r = await runLoadProcess<{ rps: number; p99: number; errors: number; non2xx: number; timeouts: number }>('http-load.ts', job);
  if (r.errors || r.non2xx || r.timeouts) console.log(`  (warning: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts at ${url})`);
  return { rps: r.rps, p99: r.p99 };
}

/** The raw rate of the same query getRegion runs, in this process, one at a time as PGlite runs them. */
async function rawQueryRate(): Promise<number> {
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < DURATION_S * 1000) {
    await sql`select * from region where id = ${regionId}`.execute(database.db);
    n++;
  }
  return n / ((performance.now() - started) / 1000);
}

try {
  console.log(`authenticated reads: ${database.kind} database, ${store.kind} store, ${CONNECTIONS} connections, ${DURATION_S} s each`);
  for (const [i, t] of targets.entries()) {
    await load(`http://127.0.0.1:${barePort}/${i}`, '{}'); // warm both up
    await load(serviceUrl + t.path, t.body, { authorization: `Bearer ${token}`, ...(t.headers ?? {}) });
    const bareRun = await load(`http://127.0.0.1:${barePort}/${i}`, '{}');
    const real = await profiled(`service-${i}`, () => load(serviceUrl + t.path, t.body, { authorization: `Bearer ${token}`, ...(t.headers ?? {}) }));
    const ratio = real.rps / bareRun.rps;
    console.log(`  ${t.name.padEnd(28)} ${real.rps.toFixed(0).padStart(7)} req/s p99 ${real.p99} ms   bare ${bareRun.rps.toFixed(0)} req/s p99 ${bareRun.p99} ms (${sizes[i]} B)   ratio ${ratio.toFixed(2)}`);
    if (t.kind === 'cached') {
      report({ goal: `${t.name}, ${database.kind}`, value: real.rps, unit: 'req/s', baseline: { name: 'bare Fastify', value: bareRun.rps }, ratio, target: `≥ 0.5 of bare, p99 ≤ 10 ms`, met: ratio >= 0.5 && real.p99 <= 10, database: database.kind });
    } else if (database.kind === 'postgres') {
      report({ goal: `${t.name}, postgres`, value: real.rps, unit: 'req/s', baseline: { name: 'bare Fastify', value: bareRun.rps }, ratio, target: '≥ 0.3 of bare', met: ratio >= 0.3, database: database.kind });
    } else {
      const raw = await rawQueryRate();
      console.log(`  raw PGlite query rate in this process: ${raw.toFixed(0)} queries/s`);
      report({ goal: `${t.name}, pglite`, value: real.rps, unit: 'req/s', baseline: { name: 'raw PGlite query', value: raw }, ratio: real.rps / raw, target: '≥ 0.6 of the raw query rate', met: real.rps / raw >= 0.6, database: database.kind });
    }
  }
} finally {
  bare.kill();
  await app.close();
  await store.close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}
