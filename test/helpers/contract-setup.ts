import { afterEach } from 'vitest';
import { contractViolations } from './contract-check.js';

/**
 * Fails the test whose answers broke the published contract (test/helpers/contract-check.ts), naming
 * each request and what was wrong, so a schema and the service cannot drift apart unnoticed.
 */
afterEach(() => {
  if (contractViolations.length === 0) return;
  const found = contractViolations.splice(0);
  const shown = found.slice(0, 10).join('\n  ');
  throw new Error(
    `${found.length} answer(s) outside the OpenAPI document:\n  ${shown}${found.length > 10 ? `\n  … and ${found.length - 10} more` : ''}`,
  );
});
