/**
 * Demo generator into PostgreSQL: 1M check rows into a fresh database, against a baseline measured in
 * the same run (a plain COPY of as many narrow rows into an unindexed, unconstrained temp table).
 *
 *   node --import tsx bench/generator.bench.ts [--scale N] [--with-triggers]
 *
 * DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/postgres); the bench creates
 * tc_bench_<random> there and drops it at the end. --with-triggers also loads the same data set through
 * the per-row foreign-key triggers (load mode "triggers") into a second fresh database.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { report as reportResult } from './report.js';
import { scratchDatabase } from './bench-app.js';

process.env.TZ ??= 'Asia/Shanghai';
const { openDatabase } = await import('../src/platform/db/database.js');
const { migrateToLatest } = await import('../src/platform/db/migrate.js');
const { seedReferenceData } = await import('../src/seed/reference.js');
const { generateDemoData } = await import('../src/seed/demo/index.js');
const { parseDay } = await import('../src/seed/demo/calendar.js');

const args = process.argv.slice(2);
const scaleArg = args.indexOf('--scale');
const SCALE = scaleArg >= 0 ? Number(args[scaleArg + 1]) : 1_000_000;
const WITH_TRIGGERS = args.includes('--with-triggers');
const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function withFreshDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const scratch = await scratchDatabase(serverUrl);
  try {
    return await fn(scratch.url);
  } finally {
    await scratch.drop();
  }
}

/** Rows/s of a plain COPY of `n` narrow rows (id, number, timestamp) into an unindexed temp table. */
async function baselineCopy(url: string, n: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create temp table bench_narrow (id bigint, n integer, t timestamptz)');
    const base = Date.UTC(2025, 0, 1);
    function* text(): Generator<string> {
      for (let i = 0; i < n; i += 4000) {
        let s = '';
        for (let k = i; k < Math.min(n, i + 4000); k++)
          s += `${k + 1}\t${k % 1000}\t${new Date(base + k * 1000).toISOString()}\n`;
        yield s;
      }
    }
    const t0 = performance.now();
    await pipeline(
      Readable.from(text(), { objectMode: false }),
      client.query(copyFrom('copy bench_narrow from stdin')),
    );
    return n / ((performance.now() - t0) / 1000);
  } finally {
    await client.end();
  }
}

async function generate(url: string, loadMode: 'auto' | 'triggers') {
  const database = openDatabase({ databaseUrl: url, dataDir: '/tmp', tz: process.env.TZ! });
  try {
    await migrateToLatest(database.db);
    await seedReferenceData(database.db, { adminUsername: 'admin', adminPassword: 'Bench@2026', openApp: null });
    const t0 = performance.now();
    const result = await generateDemoData(database, {
      scale: SCALE,
      seed: 1,
      now: parseDay('2026-06-30')!,
      databaseUrl: url,
      loadMode,
    });
    if (result.status !== 'created') throw new Error(result.message);
    // The stats' seconds end before the commit; this is the call's wall time, commit included.
    return { ...result.stats, committedSeconds: (performance.now() - t0) / 1000 };
  } finally {
    await database.close();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const report = await withFreshDatabase(async (url) => {
  const baseline = await baselineCopy(url, SCALE);
  const stats = await generate(url, 'auto');
  return { baseline, stats };
});
const { baseline, stats } = report;
const overall = stats.checkRows / stats.seconds;
console.log(
  `demo generator → PostgreSQL, ${fmt(stats.checkRows)} check rows (${stats.loadMode} load, ${stats.checkFormat} COPY of the check-ins)`,
);
console.log(
  `  check phase (COPY + index rebuild + FK check): ${stats.checkSeconds.toFixed(1)} s = ${fmt(stats.checkRate)} rows/s`,
);
console.log(
  `  whole run (catalog, ${fmt(stats.rows.card)} cards, ${fmt(stats.rows.member)} members, checks, commit): ${stats.seconds.toFixed(1)} s = ${fmt(overall)} check rows/s`,
);
console.log(
  `  baseline: plain COPY of ${fmt(SCALE)} narrow rows into an unindexed temp table: ${fmt(baseline)} rows/s`,
);
for (const [step, seconds] of Object.entries(stats.steps)) console.log(`    ${step}: ${seconds.toFixed(2)} s`);
console.log(`    commit: ${(stats.committedSeconds - stats.seconds).toFixed(2)} s`);
console.log(
  `  ratio generator / baseline: check phase ${(stats.checkRate / baseline).toFixed(2)}, whole run ${(overall / baseline).toFixed(2)}`,
);
reportResult({
  goal: 'demo generator, check rows into PostgreSQL',
  value: overall,
  unit: 'rows/s',
  baseline: { name: 'plain COPY', value: baseline },
  ratio: overall / baseline,
  target: '≥ 100,000 rows/s',
  met: overall >= 100_000,
  database: 'postgres',
});

if (WITH_TRIGGERS) {
  const slow = await withFreshDatabase((url) => generate(url, 'triggers'));
  console.log(
    `  through per-row FK triggers (load mode "triggers"): ${slow.checkSeconds.toFixed(1)} s = ${fmt(slow.checkRate)} rows/s ` +
      `(${(slow.checkRate / baseline).toFixed(2)} of baseline); whole run ${slow.seconds.toFixed(1)} s`,
  );
}
