import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';
import { afterAll, beforeAll, inject } from 'vitest';

/**
 * Files that start servers or other processes (*.process.test.ts) run one at a time: each holds a
 * lock of the run's from before its own hooks until after them. They share the two forks with the
 * other files (one process file beside one other file), not a fork of their own after all others,
 * which left a core idle for minutes; one at a time they neither starve each other of CPU nor fight
 * over start-up (docs/adr/0091-ci-runs-the-two-suites-one-after-the-other.md). The sequencer
 * (slow-first-sequencer.ts) spreads them out so a fork seldom waits here.
 */
const lockDir = path.resolve(fileURLToPath(new URL('../../.test-cache', import.meta.url)));
let release: (() => Promise<void>) | null = null;

beforeAll(async (suite) => {
  if (!suite.file.filepath.endsWith('.process.test.ts')) return;
  mkdirSync(lockDir, { recursive: true });
  release = await lockfile.lock(lockDir, {
    lockfilePath: path.join(lockDir, `process-files-${inject('runId')}.lock`),
    // Held for a whole file; kept fresh meanwhile, so only a dead holder's lock goes stale.
    stale: 30_000,
    retries: { retries: 12_000, factor: 1, minTimeout: 100, maxTimeout: 100 },
  });
}, 1_500_000);

afterAll(async () => {
  await release?.();
  release = null;
});
