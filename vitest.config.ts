import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/slow-first-sequencer.js';

// One worker per core: each test file runs CPU-bound PGlite (WebAssembly) or talks to PostgreSQL.
const workers = Math.max(1, os.availableParallelism());

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // PGlite's WebAssembly compiled once per worker; every answer a test receives checked against the
    // app's own OpenAPI document; files that start server processes taking turns.
    setupFiles: [
      'test/helpers/pglite-setup.ts',
      'test/helpers/contract-setup.ts',
      'test/helpers/process-files-setup.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { TZ: 'Asia/Shanghai' },
    // Vitest 3 reads the fork pool's size and worker reuse from here, never from a project: set on the
    // project alone they were ignored, and every file ran alone in a new process (docs/adr/0092-test-files-share-workers-and-start-from-a-snapshot.md).
    // Workers are reused across files (isolate: false), so each imports the service's modules once.
    pool: 'forks',
    poolOptions: { forks: { maxForks: workers, minForks: 1, isolate: false } },
    // Longest files first, the process-starting ones spread out among them (test/helpers/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        // One project: with workers reused, vitest runs a second project's files only after all of the
        // first's. Files that start real server processes (*.process.test.ts) take turns among
        // themselves instead (test/helpers/process-files-setup.ts), beside the other files.
        extends: true,
        test: {
          name: 'app',
          include: ['test/**/*.test.ts'],
        },
      },
    ],
  },
});
