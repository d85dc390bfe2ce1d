/**
 * `npm run bench` runs every bench/*.bench.ts in turn, each in a process of its own, and prints one
 * table of the goals they report (bench/report.ts), also written to bench/results.json.
 * `npm run bench -- NAME` runs those whose file name contains NAME and updates their rows only.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt } from './report.js';

const benchDir = import.meta.dirname;
const only = process.argv.slice(2);
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const scratch = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
const resultsFile = path.join(scratch, 'results.jsonl');
const failed: string[] = [];
for (const file of files) {
  console.log(`\n=== ${file}`);
  const started = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(benchDir, file)], {
      cwd: path.dirname(benchDir),
      stdio: 'inherit',
      env: { ...process.env, BENCH_RESULTS_FILE: resultsFile, BENCH_NAME: file.replace(/\.bench\.ts$/, '') },
    });
    child.on('close', resolve);
  });
  console.log(
    `=== ${file}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  if (code !== 0) failed.push(file);
}

interface Row {
  bench: string;
  goal: string;
  value: number;
  unit: string;
  ratio?: number;
  baseline?: { name: string; value: number };
  target: string;
  met: boolean;
  database?: string;
}
const fresh: Row[] = existsSync(resultsFile)
  ? readFileSync(resultsFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
rmSync(scratch, { recursive: true, force: true });

// A partial run replaces the rows of the benches it ran on the databases it ran them on, and keeps the
// others (a bench run on PGlite and then on PostgreSQL + Redis keeps both sets of rows).
const target = path.join(benchDir, 'results.json');
const ran = new Set(files.map((f) => f.replace(/\.bench\.ts$/, '')));
const ranOn = new Set(fresh.map((r) => `${r.bench}|${r.database ?? ''}`));
const previous: Row[] = existsSync(target) ? (JSON.parse(readFileSync(target, 'utf8')).results ?? []) : [];
const replaced = (r: Row) =>
  ran.has(r.bench) && (ranOn.has(`${r.bench}|${r.database ?? ''}`) || !fresh.some((f) => f.bench === r.bench));
const rows = [...previous.filter((r) => !replaced(r)), ...fresh].sort(
  (a, b) => a.bench.localeCompare(b.bench) || (a.database ?? '').localeCompare(b.database ?? ''),
);
writeFileSync(
  target,
  JSON.stringify(
    {
      measuredAt: new Date().toISOString(),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
      results: rows,
    },
    null,
    2,
  ) + '\n',
);

const table = rows.map((r) => ({
  bench: r.bench,
  goal: r.goal,
  measured: `${fmt(r.value)} ${r.unit}`,
  ratio: r.ratio !== undefined ? `${r.ratio.toFixed(2)}${r.baseline ? ` of ${r.baseline.name}` : ''}` : '',
  target: r.target,
  met: r.met ? 'yes' : 'NO',
}));
const cols = ['bench', 'goal', 'measured', 'ratio', 'target', 'met'] as const;
const width = Object.fromEntries(cols.map((c) => [c, Math.max(c.length, ...table.map((t) => t[c].length))]));
console.log('\n' + cols.map((c) => c.padEnd(width[c])).join(' | '));
console.log(cols.map((c) => '-'.repeat(width[c])).join('-|-'));
for (const t of table) console.log(cols.map((c) => t[c].padEnd(width[c])).join(' | '));
console.log(`\n${rows.filter((r) => r.met).length} of ${rows.length} goals met; written to bench/results.json`);
if (failed.length) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}
