/**
 * exportDistributeDetail of one batch of 1M detail rows on PostgreSQL, served by the service as it is
 * deployed (the `npm start` bundle, a process of its own) to curl: rows/s, and the service's peak RSS
 * (VmHWM) while it streams (issue 10: targets ≥ 100k rows/s and ≤ 256 MB). Against baselines measured in
 * the same run: the bare workbook writer fed the same rows from memory, and the same keyset reads by a
 * raw pg client with no workbook and no HTTP.
 *
 *   node --import tsx bench/allocation-export.bench.ts [--rows N]
 *
 * Creates tc_bench_<random> on DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres)
 * and drops it at the end. Linux (reads /proc) with curl and unzip on the PATH.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { issuePlatformToken, scratchDatabase, serviceNodeArgs } from './bench-app.js';
import { freePort } from '../test/helpers/free-port.js';
import { report } from './report.js';

const { openDatabase } = await import('../src/platform/db/database.js');
const { migrateToLatest } = await import('../src/platform/db/migrate.js');
const { seedReferenceData } = await import('../src/seed/reference.js');
const { openStore } = await import('../src/platform/store/index.js');
const { XlsxStreamWriter } = await import('../src/platform/export/xlsx-writer.js');
const { detailExportColumns } = await import('../src/modules/allocation/detail-export.js');

const args = process.argv.slice(2);
const ROWS = args.includes('--rows') ? Number(args[args.indexOf('--rows') + 1]) : 1_000_000;
const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const repoRoot = path.resolve(import.meta.dirname, '..');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

/** Rows/s of the xlsx writer alone (the export's columns, a null sink), cycling through `sample`. */
async function bareWriterRate(sample: Record<string, unknown>[], n: number): Promise<number> {
  const columns = detailExportColumns('2026-05', '畅游年卡');
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      cb();
    },
  });
  const writer = new XlsxStreamWriter(
    sink,
    columns.map((c) => ({ header: c.header, kind: c.kind ?? 'text', width: c.width })),
  );
  const t0 = performance.now();
  for (let i = 0; i < n; i += 5000) {
    const chunk = [];
    for (let k = i; k < Math.min(n, i + 5000); k++)
      chunk.push(columns.map((c) => c.value(sample[k % sample.length] as never)));
    await writer.writeRows(chunk);
  }
  await writer.finish();
  if (bytes === 0) throw new Error('the writer wrote nothing');
  return n / ((performance.now() - t0) / 1000);
}

/** kB figures of /proc/<pid>/status: VmRSS now, VmHWM the peak so far. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function startService(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, serviceNodeArgs(), {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the service did not become ready in a minute');
}

function curlTo(file: string, url: string, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn('curl', ['-sSf', '-o', file, '-H', `authorization: Bearer ${token}`, url], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`curl exited ${code}`))));
  });
}

/** `<row ` elements of the workbook's sheet, counted while unzip streams it. */
function sheetRowsOf(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const unzip = spawn('unzip', ['-p', file, 'xl/worksheets/sheet1.xml']);
    let count = 0;
    let tail = '';
    unzip.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      // '<row ' is 5 characters: the 4 kept from the previous chunk cannot hold a whole one.
      const text = tail + chunk;
      count += text.split('<row ').length - 1;
      tail = text.slice(-4);
    });
    unzip.on('error', reject);
    unzip.on('close', (code) => (code === 0 ? resolve(count) : reject(new Error(`unzip exited ${code}`))));
  });
}

const { url, drop } = await scratchDatabase(serverUrl);
const dir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-export-'));
let service: ChildProcess | null = null;

try {
  const setup = openDatabase({ databaseUrl: url, dataDir: dir, tz: process.env.TZ! });
  await migrateToLatest(setup.db);
  await seedReferenceData(setup.db, { adminUsername: 'admin', adminPassword: 'Bench@2026', openApp: null });
  const token = await issuePlatformToken(setup.db, await openStore(null, 'bench:'), ['allocation:read']);
  await setup.close();

  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  // One batch whose ROWS details name 1,000 parks of 50 merchants.
  await raw.query(`insert into merchant (name) select 'Merchant ' || g from generate_series(1, 50) g`);
  await raw.query(`insert into shop (name, merchant_id) select 'Shop ' || id, id from merchant`);
  await raw.query(
    `insert into spu (name, shop_id, merchant_id, resource_type) select '景区 ' || g, s.id, s.merchant_id, 2 from generate_series(1, 1000) g join shop s on s.id = (select min(id) from shop) + g % 50`,
  );
  const {
    rows: [model],
  } = await raw.query(
    `insert into card_model (name, price, allocation_enabled) values ('畅游年卡', 19800, true) returning id`,
  );
  const {
    rows: [batch],
  } = await raw.query(
    `insert into distribute_batch (batch_no, year, month, quarter, card_model_id, card_model_name, card_model_price, valid_user_count, total_distribute_amount, park_count, exec_time, calc_mode, ratio)
     values ('DA202605-bench', 2026, 5, 2, $1, '畅游年卡', 19800, 1000000, 0, $2, now(), 'ratio', 80) returning id`,
    [model.id, ROWS],
  );
  const t0 = performance.now();
  await raw.query(
    `insert into distribute_detail (batch_id, year, month, card_model_id, park_id, park_name, merchant_id, shop_id, check_num, distribute_percent, distribute_amount)
     select $1, 2026, 5, $2, s.id, s.name, s.merchant_id, s.shop_id, 1 + g % 997, round(100.0 / $3, 4), 100 + g % 100000
     from generate_series(1, $3) g join spu s on s.id = (select min(id) from spu) + g % 1000`,
    [batch.id, model.id, ROWS],
  );
  await raw.query(
    `update distribute_batch set total_distribute_amount = (select sum(distribute_amount) from distribute_detail where batch_id = $1) where id = $1`,
    [batch.id],
  );
  await raw.query('vacuum analyze distribute_detail');
  console.log(`  (made ${fmt(ROWS)} detail rows in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const port = await freePort();
  service = await startService(
    {
      ...process.env,
      DATABASE_URL: url,
      REDIS_URL: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: dir,
      ADMIN_PASSWORD: 'Bench@2026',
      DEMO: '',
    },
    port,
  );
  const exportUrl = `http://127.0.0.1:${port}/manage-api/distributeAmount/exportDistributeDetail?batchId=${batch.id}`;
  // A first small request rebuilds the session and warms the route.
  const warm = await fetch(`http://127.0.0.1:${port}/manage-api/distributeAmount/getDistributeBatch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: batch.id }),
  });
  if ((await warm.json()).errcode !== 0) throw new Error('the bench session was refused');
  const before = memoryOf(service.pid!);
  const file = path.join(dir, 'export.xlsx');
  const e0 = performance.now();
  await curlTo(file, exportUrl, token);
  const seconds = (performance.now() - e0) / 1000;
  const after = memoryOf(service.pid!);

  // The follow-up runs once the last byte has gone out; give it a moment.
  let status = 0;
  for (let i = 0; i < 100 && status !== 3; i++) {
    status = Number((await raw.query('select status from distribute_batch where id = $1', [batch.id])).rows[0].status);
    if (status !== 3) await new Promise((r) => setTimeout(r, 20));
  }
  const sheetRows = await sheetRowsOf(file);
  service.kill('SIGTERM');

  // Baselines: the export's keyset reads by a raw pg client (rows discarded), and the bare writer.
  const b0 = performance.now();
  let afterId = 0;
  let seen = 0;
  for (;;) {
    const r = await raw.query(
      `select id, park_id, park_name, check_num, distribute_percent, distribute_amount
       from distribute_detail where batch_id = $1 and id > $2 order by id limit 5000`,
      [batch.id, afterId],
    );
    seen += r.rows.length;
    if (r.rows.length < 5000) break;
    afterId = r.rows[r.rows.length - 1].id;
  }
  const readRate = seen / ((performance.now() - b0) / 1000);
  const sample = (
    await raw.query(
      `select id, park_id, park_name, check_num, distribute_percent, distribute_amount from distribute_detail where batch_id = $1 order by id limit 5000`,
      [batch.id],
    )
  ).rows;
  const writerRate = await bareWriterRate(sample, ROWS);
  await raw.end();

  const rate = ROWS / seconds;
  console.log(
    `allocation exportDistributeDetail on PostgreSQL, npm start bundle → curl: ${fmt(ROWS)} detail rows, file ${mb(statSync(file).size)} MB`,
  );
  console.log(`  export: ${seconds.toFixed(1)} s = ${fmt(rate)} rows/s (target ≥ 100,000)`);
  console.log(
    `  service peak RSS (VmHWM): ${mb(after.peak)} MB (target ≤ 256); ${mb(before.rss)} MB before the export, peak until then ${mb(before.peak)} MB`,
  );
  console.log(
    `  baseline 1, the bare workbook writer fed the same rows from memory: ${fmt(writerRate)} rows/s; export / writer ${(rate / writerRate).toFixed(2)}`,
  );
  console.log(
    `  baseline 2, the same keyset reads by a raw pg client: ${fmt(readRate)} rows/s; export / reads ${(rate / readRate).toFixed(2)}`,
  );
  report({
    goal: `exportDistributeDetail of ${fmt(ROWS)} rows, rate`,
    value: rate,
    unit: 'rows/s',
    baseline: { name: 'raw keyset reads', value: readRate },
    ratio: rate / readRate,
    target: '≥ 100,000 rows/s',
    met: rate >= 100_000,
    database: 'postgres',
  });
  report({
    goal: `exportDistributeDetail of ${fmt(ROWS)} rows, peak RSS`,
    value: after.peak / 1024 / 1024,
    unit: 'MB',
    target: '≤ 256 MB',
    met: after.peak / 1024 / 1024 <= 256,
    database: 'postgres',
  });
  console.log(
    `  workbook rows read back (header + details + total): ${fmt(sheetRows)} (expected ${fmt(ROWS + 2)}); batch status after: ${status} (expected 3)`,
  );
  if (sheetRows !== ROWS + 2 || status !== 3) process.exitCode = 1;
} finally {
  if (service && service.exitCode === null) {
    service.kill('SIGTERM');
    await new Promise((r) => service!.once('exit', r));
  }
  await drop();
  rmSync(dir, { recursive: true, force: true });
}
