import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/**
 * A Redis key prefix of this test run's own (`test:<runId>:<label>:<random>:`): the run's teardown
 * (global-setup) and `.ci/run` delete every key under `test:<runId>`, so keys with long expiries
 * (SMS day counters, login locks) do not outlive the run.
 */
export function testStorePrefix(label: string): string {
  return `test:${inject('runId')}:${label}:${randomBytes(4).toString('hex')}:`;
}
