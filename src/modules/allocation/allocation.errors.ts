import { AppError, badRequest, errcodes, forbidden, notFound } from '../../platform/errors.js';

/**
 * The allocation module's refusals: common codes (docs/architecture.md §6) with plain messages, and one code of
 * its range 1_004_000_000 (docs/errors.md) for a total the service cannot hold exactly.
 */
export const AllocationError = errcodes({
  TOTAL_TOO_LARGE: [1_004_000_001, "a month's allocatable total of a card model is larger than 2^53 - 1 cents"],
});

export const fixedAmountRequired = () => badRequest('fixedAmount is required when calcMode is fixed');
export const unknownCardModels = (ids: number[]) =>
  badRequest(`cardModelIds is invalid: no card model ${ids.join(', ')}`);
export const notAllocationEnabled = (ids: number[]) =>
  badRequest(`cardModelIds is invalid: card model ${ids.join(', ')} does not take part in allocation`);
export const platformOnly = () => forbidden('only platform users can run or delete allocations');
export const batchNotFound = () => notFound('allocation batch');
export const batchOfAnother = (scope: 'merchant' | 'shop') =>
  forbidden(scope === 'shop' ? 'the record belongs to another shop' : 'the record belongs to another merchant');
export const totalTooLarge = (model: string, year: number, month: number) =>
  new AppError(
    AllocationError.TOTAL_TOO_LARGE,
    `the allocation total of ${model} for ${year}-${String(month).padStart(2, '0')} is larger than the service can hold exactly`,
  );
