/**
 * executeCalc for 3 card models × 1 month over the demo data set's check rows on PostgreSQL, against
 * the single raw SQL aggregate over the same check rows, measured in the same run (issue 10).
 *
 *   node --import tsx bench/allocation.bench.ts [--scale N] [--rounds R]
 *
 * With ALLOCATION_BENCH_URL naming a database already holding the demo data (npm run seed -- --scale N),
 * that database is used and kept (the bench adds a staff user and replaces the month's batches).
 * Otherwise a fresh tc_bench_<random> database is created on DATABASE_URL's server (default
 * postgres://postgres@127.0.0.1:5432/postgres), seeded with --scale check rows (default 10M) and dropped.
 * Tables are vacuumed and analysed first, as autovacuum does after a bulk load.
 */
import pg from 'pg';
import { demoDatabase, openBenchApp } from './bench-app.js';
import { report } from './report.js';
import { ALLOCATION_BASELINE_SQL, ALLOCATION_COUNTS_SQL } from './allocation-sql.js';

const { migrateToLatest } = await import('../src/platform/db/migrate.js');

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const SCALE = arg('--scale', 10_000_000);
const ROUNDS = arg('--rounds', 5);
const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const reuse = process.env.ALLOCATION_BENCH_URL || null;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { url, drop } = await demoDatabase(serverUrl, SCALE, reuse);
const raw = new pg.Client({ connectionString: url, options: `-c TimeZone=${process.env.TZ}` });
await raw.connect();
const bench = await openBenchApp(url);
try {
  await migrateToLatest(bench.db);
  await raw.query('vacuum analyze card');
  await raw.query('vacuum analyze card_check');
  const {
    rows: [info],
  } = await raw.query<{ n: string; last: Date }>('select count(*) as n, max(check_time) as last from card_check');
  // The last whole month of the data set.
  const last = new Date(info.last);
  const year = last.getMonth() === 0 ? last.getFullYear() - 1 : last.getFullYear();
  const month = last.getMonth() === 0 ? 12 : last.getMonth();
  const start = new Date(year, month - 1, 1);
  const end = new Date(year, month, 1);
  const models = (
    await raw.query<{ id: string }>(
      'select id from card_model where allocation_enabled and not is_deleted order by id limit 3',
    )
  ).rows.map((r) => Number(r.id));
  const {
    rows: [{ n: monthChecks }],
  } = await raw.query<{ n: string }>(
    'select count(*) as n from card_check where check_time >= $1 and check_time < $2',
    [start, end],
  );

  // The baseline: one raw statement aggregating the same check rows executeCalc aggregates; for
  // reference, the valid-user counts as raw SQL (bench/allocation-sql.ts).
  const BASELINE = ALLOCATION_BASELINE_SQL;
  const COUNTS = ALLOCATION_COUNTS_SQL;

  const token = await bench.platformToken(['allocation:*']);
  const body = { year, month, cardModelIds: models };
  const execute = async () => {
    const res = await bench.app.inject({
      method: 'POST',
      url: '/manage-api/distributeAmount/executeCalc',
      payload: body,
      headers: { authorization: `Bearer ${token}` },
    });
    const out = res.json();
    if (out.errcode !== 0) throw new Error(`executeCalc failed: ${out.errmsg}`);
    return out.data as Array<{ id: number; cardModelId: number; totalDistributeAmount: number }>;
  };
  const time = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
    const t0 = performance.now();
    const out = await fn();
    return [performance.now() - t0, out];
  };

  // Warm both once (the same pages are then cached for both), then alternate.
  const baselineRows = (await raw.query(BASELINE, [models, start, end])).rows;
  await execute();
  const tb: number[] = [];
  const te: number[] = [];
  const tc: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    tb.push((await time(() => raw.query(BASELINE, [models, start, end])))[0]);
    te.push((await time(execute))[0]);
    tc.push((await time(() => raw.query(COUNTS, [models, start, end])))[0]);
  }

  // What executeCalc saved agrees with the raw aggregate, and every batch conserves its cents.
  const saved = await raw.query<{ card_model_id: string; park_id: string; check_num: string }>(
    `select d.card_model_id, d.park_id, d.check_num from distribute_detail d join distribute_batch b on b.id = d.batch_id
     where not b.is_deleted and b.year = $1 and b.month = $2 and b.card_model_id = any ($3::bigint[]) and d.check_num > 0`,
    [year, month, models],
  );
  const key = (m: unknown, p: unknown) => `${m}:${p}`;
  const rawSums = new Map(baselineRows.map((r) => [key(r.card_model_id, r.resource_id), Number(r.check_num)]));
  const mismatched = saved.rows.filter((r) => rawSums.get(key(r.card_model_id, r.park_id)) !== Number(r.check_num));
  const conserved = await raw.query<{ ok: boolean }>(
    `select bool_and(b.total_distribute_amount = coalesce(s.sum, 0) or coalesce(s.checks, 0) = 0) as ok from distribute_batch b
     left join (select batch_id, sum(distribute_amount) as sum, sum(check_num) as checks from distribute_detail group by batch_id) s on s.batch_id = b.id
     where not b.is_deleted and b.year = $1 and b.month = $2`,
    [year, month],
  );

  const mb = median(tb);
  const me = median(te);
  const mc = median(tc);
  const period = `${year}-${String(month).padStart(2, '0')}`;
  console.log(
    `allocation executeCalc on PostgreSQL: ${models.length} card models × ${period}; ${fmt(Number(info.n))} check rows in the table (scale), ${fmt(Number(monthChecks))} in the month`,
  );
  console.log(
    `  executeCalc (HTTP inject → 2 aggregates → split → save, one transaction): median ${me.toFixed(1)} ms over ${ROUNDS} rounds [${te.map((x) => x.toFixed(0)).join(', ')}]`,
  );
  console.log(
    `  baseline, the single raw aggregate over the same check rows:                median ${mb.toFixed(1)} ms [${tb.map((x) => x.toFixed(0)).join(', ')}]`,
  );
  console.log(
    `  (for reference, the raw valid-user counts executeCalc also needs:            median ${mc.toFixed(1)} ms)`,
  );
  console.log(
    `  ratio executeCalc / baseline: ${(me / mb).toFixed(2)} (target ≤ 1.3); against raw aggregate + raw counts: ${(me / (mb + mc)).toFixed(2)}`,
  );
  report({
    goal: `executeCalc over ${fmt(Number(info.n))} checks`,
    value: me,
    unit: 'ms',
    baseline: { name: 'raw SQL aggregate', value: mb },
    ratio: me / mb,
    target: '≤ 1.3× the raw aggregate',
    met: me / mb <= 1.3,
    database: 'postgres',
  });
  console.log(
    `  check sums agree with the raw aggregate: ${mismatched.length === 0 ? 'yes' : `NO (${mismatched.length} differ)`}; every batch conserves its cents: ${conserved.rows[0].ok ? 'yes' : 'NO'}`,
  );
  if (mismatched.length || !conserved.rows[0].ok) process.exitCode = 1;
} finally {
  await bench.close();
  await raw.end();
  await drop();
}
