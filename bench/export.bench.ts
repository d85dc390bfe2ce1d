/**
 * The streamed xlsx export (platform/export) over real HTTP: BENCH_ROWS rows (default 1,000,000) read
 * in keyset batches from the database, written as .xlsx into the response, against the same rows and
 * reads written as CSV in the same run. Prints rows/s of each, the ratio, and the peak RSS of the
 * process while each ran and how much it grew during the export (targets: xlsx ≥ 100k rows/s, peak RSS
 * ≤ 256 MB). On PGlite the process also holds the database's WebAssembly heap (the generated rows), so
 * its RSS is the database plus the export; on PostgreSQL it is the export alone. No assertions on time.
 *
 * Embedded PGlite by default; DATABASE_URL runs it on PostgreSQL. This process plays the service, so
 * it runs with the service's heap cap (npm start's --max-old-space-size, NODE_HEAP_MB): it starts
 * itself again with it when it was started without.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { MODULES } from '../src/modules/index.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { XlsxExport } from '../src/platform/export/xlsx-export.js';
import { defineRoute } from '../src/platform/http/routes.js';
import { FileResponse } from '../src/platform/http/responses.js';
import { defineModule } from '../src/platform/module.js';
import { openStore } from '../src/platform/store/index.js';
import { formatDateTime } from '../src/platform/time.js';
import { serviceNodeArgs } from './bench-app.js';
import { report } from './report.js';

if (!process.env.BENCH_EXPORT_CAPPED) {
  const heap = serviceNodeArgs().filter((a) => a.startsWith('--max-old-space-size'));
  const child = spawn(process.execPath, [...heap, ...process.execArgv, fileURLToPath(import.meta.url)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_EXPORT_CAPPED: '1' },
  });
  process.exit(await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1))));
}

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const BATCH = 5000;

interface Row {
  id: number;
  park_name: string;
  check_num: number;
  distribute_percent: string;
  distribute_amount: number;
  created_at: Date;
}

// Undone in reverse order at the end, whatever fails on the way: no table, data directory or
// server outlives the run.
const cleanups: Array<() => unknown> = [];
try {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-export-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  process.env.TZ = config.tz;
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir,
    tz: config.tz,
    inMemory: !config.databaseUrl,
  });
  cleanups.push(() => database.close());
  const db = database.db;
  await migrateToLatest(db);
  const table = `bench_export_${randomBytes(3).toString('hex')}`;
  // Made in DATABASE_URL's own database: dropped whatever fails after it.
  cleanups.push(() => sql`drop table if exists ${sql.table(table)}`.execute(db));
  await sql`create table ${sql.table(table)} (
    id bigint primary key, park_name text not null, check_num integer not null,
    distribute_percent numeric(9, 6) not null, distribute_amount bigint not null, created_at timestamptz not null)`.execute(
    db,
  );
  await sql`insert into ${sql.table(table)}
    select g, '景区 ' || (g % 200), (g * 7) % 977, round(((g % 10000) / 10000.0)::numeric, 6), (g * 37) % 10000000,
           timestamptz '2026-05-01 00:00:00+08' + (g % 86400) * interval '1 second'
    from generate_series(1, ${ROWS}) g`.execute(db);

  const batches = async (after: Row | null, limit: number): Promise<Row[]> => {
    const r =
      await sql<Row>`select * from ${sql.table(table)} where id > ${after?.id ?? 0} order by id limit ${limit}`.execute(
        db,
      );
    return r.rows;
  };

  async function* csvLines(): AsyncGenerator<string> {
    yield 'id,park_name,check_num,distribute_percent,distribute_amount,created_at\n';
    let after: Row | null = null;
    for (;;) {
      const rows = await batches(after, BATCH);
      if (rows.length === 0) return;
      let chunk = '';
      for (const r of rows) {
        const cents = Number(r.distribute_amount);
        chunk += `${r.id},"${r.park_name}",${r.check_num},${r.distribute_percent},${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')},${formatDateTime(r.created_at)}\n`;
      }
      yield chunk;
      after = rows[rows.length - 1];
    }
  }

  const bench = defineModule({
    name: 'bench',
    routes: () => [
      defineRoute({
        method: 'POST',
        path: '/bench/xlsx',
        channels: ['manage'],
        auth: 'public',
        summary: 'bench',
        tags: ['bench'],
        response: 'file',
        file: {
          mediaTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
          description: 'the rows as xlsx',
        },
        handler: async () =>
          new XlsxExport<Row>({
            fileName: '分配明细.xlsx',
            batchSize: BATCH,
            columns: [
              { header: 'ID', kind: 'integer', value: (r) => r.id },
              { header: '景区', value: (r) => r.park_name },
              { header: '核销次数', kind: 'integer', value: (r) => r.check_num },
              { header: '分配比例', kind: 'decimal', value: (r) => r.distribute_percent },
              { header: '分配金额(元)', kind: 'money', value: (r) => Number(r.distribute_amount), total: true },
              { header: '时间', kind: 'datetime', value: (r) => r.created_at },
            ],
            totalRow: '合计',
            batches,
          }),
      }),
      defineRoute({
        method: 'POST',
        path: '/bench/csv',
        channels: ['manage'],
        auth: 'public',
        summary: 'bench',
        tags: ['bench'],
        response: 'file',
        file: { mediaTypes: ['text/csv'], description: 'the rows as CSV' },
        handler: async () => new FileResponse('text/csv; charset=utf-8', Readable.from(csvLines())),
      }),
    ],
  });

  // The in-process store: the export reads nothing from it, and nothing is left in a Redis.
  const store = await openStore(null, 'bench:');
  cleanups.push(() => store.close());
  const app = await buildApp({ config, database, store, logger: false, modules: [...MODULES, bench] });
  cleanups.push(() => app.close());
  const base = await app.listen({ port: 0, host: '127.0.0.1' });

  async function measure(kind: 'xlsx' | 'csv') {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = performance.now();
    const res = await fetch(`${base}/manage-api/bench/${kind}`, { method: 'POST' });
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    return {
      kind,
      status: res.status,
      bytes,
      seconds,
      rowsPerS: ROWS / seconds,
      peakRssMb: peak / 1024 / 1024,
      growthMb: (peak - before) / 1024 / 1024,
    };
  }

  const csv = await measure('csv');
  const xlsx = await measure('xlsx');
  const csv2 = await measure('csv');
  const baseline = Math.max(csv.rowsPerS, csv2.rowsPerS);

  console.log(`export of ${ROWS.toLocaleString('en')} rows on ${database.kind}, keyset batches of ${BATCH}, over HTTP`);
  for (const m of [csv, xlsx]) {
    console.log(
      `  ${m.kind.padEnd(4)}  ${m.seconds.toFixed(2)} s  ${Math.round(m.rowsPerS).toLocaleString('en')} rows/s  ${(m.bytes / 1e6).toFixed(1)} MB  peak RSS ${m.peakRssMb.toFixed(0)} MB (+${m.growthMb.toFixed(0)} MB during the export)`,
    );
  }
  console.log(
    `  xlsx/csv ratio ${(xlsx.rowsPerS / baseline).toFixed(2)}  (targets: xlsx ≥ 100,000 rows/s → ${xlsx.rowsPerS >= 100_000 ? 'met' : 'NOT met'}; peak RSS ≤ 256 MB → ${xlsx.peakRssMb <= 256 ? 'met' : 'NOT met'})`,
  );
  report({
    goal: `xlsx export of ${ROWS.toLocaleString('en')} rows (${database.kind}), rate`,
    value: xlsx.rowsPerS,
    unit: 'rows/s',
    baseline: { name: 'csv of the same reads', value: baseline },
    ratio: xlsx.rowsPerS / baseline,
    target: '≥ 100,000 rows/s',
    met: xlsx.rowsPerS >= 100_000,
    database: database.kind,
  });
  report({
    goal: `xlsx export of ${ROWS.toLocaleString('en')} rows (${database.kind}), peak RSS`,
    value: xlsx.peakRssMb,
    unit: 'MB',
    target: '≤ 256 MB',
    met: xlsx.peakRssMb <= 256,
    database: database.kind,
  });
} finally {
  for (const undo of cleanups.reverse()) await undo();
}
