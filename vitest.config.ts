import os from 'node:os';
import { defineConfig } from 'vitest/config';

// One worker per core: each test file runs CPU-bound PGlite (WebAssembly) or talks to PostgreSQL.
const workers = Math.max(1, os.availableParallelism());

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // Every answer a test receives is checked against the app's own OpenAPI document.
    setupFiles: ['test/helpers/contract-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { TZ: 'Asia/Shanghai' },
    // Vitest 3 reads the fork pool's size and worker reuse from here, never from a project: set on the
    // project alone they were ignored, and every file ran alone in a new process (docs/decisions.md).
    // Workers are reused across files (isolate: false), so each imports the service's modules once.
    pool: 'forks',
    poolOptions: { forks: { maxForks: workers, minForks: 1, isolate: false } },
    projects: [
      {
        extends: true,
        test: {
          name: 'app',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.process.test.ts'],
        },
      },
      {
        // Tests that start real server processes: one file at a time, so they neither starve each
        // other of CPU nor fight over start-up, and their timings stay meaningful.
        extends: true,
        test: {
          name: 'process',
          include: ['test/**/*.process.test.ts'],
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
