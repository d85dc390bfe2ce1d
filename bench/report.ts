/**
 * One result line per goal. Each bench prints its own detail and calls `report` for the figures its
 * goals are judged on; `npm run bench` (bench/run.ts) gathers them into one table and bench/results.json.
 */
import { appendFileSync } from 'node:fs';

export interface BenchResult {
  /** the goal, e.g. "xlsx export, 1M rows" */
  goal: string;
  /** what was measured and its unit, e.g. 98_000 rows/s */
  value: number;
  unit: string;
  /** the baseline measured in the same run, when the goal is a ratio */
  baseline?: { name: string; value: number };
  ratio?: number;
  /** the target as written in the issue, e.g. "≥ 100,000 rows/s" */
  target: string;
  met: boolean;
  database?: string;
}

export function report(result: BenchResult): void {
  const bench = process.env.BENCH_NAME ?? process.argv[1]?.split('/').pop() ?? 'bench';
  const line = { bench, ...result };
  console.log(
    `  → ${result.goal}: ${fmt(result.value)} ${result.unit}${result.ratio !== undefined ? `, ratio ${result.ratio.toFixed(2)}` : ''} (target ${result.target}: ${result.met ? 'met' : 'NOT met'})`,
  );
  if (process.env.BENCH_RESULTS_FILE) appendFileSync(process.env.BENCH_RESULTS_FILE, JSON.stringify(line) + '\n');
}

export function fmt(n: number): string {
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2);
}

/** The q-quantile of the samples (nearest rank). */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
