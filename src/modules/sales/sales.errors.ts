import { conflict, notFound } from '../../platform/errors.js';

/**
 * The sales module's refusals. They use the common codes (404, 409, docs/architecture.md §6); the module's own
 * range 1_010_000_000 (docs/errors.md) is reserved for refusals a client must tell apart.
 */
export const salesNotFound = () => notFound('sales institution');
export const deptNotFound = () => notFound('department (deptId)');
/** As addDept answers for a disabled parent department (409). */
export const deptDisabled = () => conflict('the department (deptId) is disabled: enable it first');
export const inviteCodeTaken = (code: string) =>
  conflict(`inviteCode "${code}" is already used by another sales institution`);
