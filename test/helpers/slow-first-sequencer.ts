import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each slow test file took on 2 cores (2026-12-06; PGlite, the process files' PostgreSQL
 * parts shorter on PGlite), for a run that has no durations of an earlier one (a fresh clone, CI).
 * Order only: a file missing here, or listed and since made faster, changes no result.
 */
export const MEASURED_SECONDS: Record<string, number> = {
  'test/scripts/new-module.process.test.ts': 50,
  'test/platform/npm-start.process.test.ts': 45,
  'test/fuzz/fuzz.test.ts': 40,
  'test/cluster/faults.process.test.ts': 35,
  'test/platform/shutdown.process.test.ts': 35,
  'test/platform/backup.test.ts': 30,
  'test/db/pglite-thread.test.ts': 28,
  'test/storage/local-backend.test.ts': 27,
  'test/seed/demo-generator.test.ts': 25,
  'test/storage/s3-backend.test.ts': 25,
  'test/card/card-batches.test.ts': 18,
  'test/statistics/statistics-precomputed.test.ts': 18,
  'test/db/data-dir-lock.test.ts': 16,
  'test/security/cross-scope.test.ts': 16,
  'test/platform/pipeline.test.ts': 15,
  'test/storage/storage.test.ts': 15,
  'test/client/generated-client.test.ts': 12,
  'test/region/region.test.ts': 11,
  'test/checker/checker-login-race.test.ts': 11,
  'test/settlement/settlement.test.ts': 11,
  'test/spec/spec-minimal.test.ts': 11,
  'test/platform/openapi.process.test.ts': 8,
};

const isProcessFile = (rel: string) => rel.endsWith('.process.test.ts');

/**
 * Longest files first, so the two forks end together rather than one idling behind a late long file:
 * by vitest's durations from an earlier run where it has them for every file (failed files still
 * first), else by MEASURED_SECONDS (vitest would order by size, and the slowest files are small ones:
 * a 3-line file runs a 30 s shared suite). Files that start servers (*.process.test.ts) run one at a
 * time (process-files-setup.ts) and are spread out, each after about its own length of other files,
 * so the other fork is busy with those meanwhile rather than waiting for its turn.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rel = (spec: TestSpecification) => path.relative(root, spec.moduleId).split(path.sep).join('/');
    const cached = (spec: TestSpecification) => this.ctx.cache.getFileTestResults(`${spec.project.name}:${rel(spec)}`);
    const fromCache = sorted.every((spec) => cached(spec));
    const ms = (spec: TestSpecification) =>
      fromCache ? (cached(spec)?.duration ?? 0) : (MEASURED_SECONDS[rel(spec)] ?? 0) * 1000;
    // Array.prototype.sort is stable: files of equal (unknown) length keep vitest's order.
    const ordered = fromCache ? sorted : [...sorted].sort((a, b) => ms(b) - ms(a));
    const processFiles = ordered.filter((spec) => isProcessFile(rel(spec)));
    const out: TestSpecification[] = [];
    let othersToCover = 0;
    for (const spec of ordered) {
      if (isProcessFile(rel(spec))) continue;
      if (othersToCover <= 0 && processFiles.length > 0) {
        const next = processFiles.shift()!;
        out.push(next);
        othersToCover = ms(next);
      }
      out.push(spec);
      othersToCover -= ms(spec);
    }
    return out.concat(processFiles);
  }
}
