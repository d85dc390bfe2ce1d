import { STATUS_NAMES } from './settlement-status.js';
import { AppError, badRequest, conflict, errcodes, forbidden, notFound } from '../../platform/errors.js';
import { MAX_PAYABLE_CENTS } from './settlement.schemas.js';

/**
 * The settlement module's refusals (docs/errors.md, range 1_006_000_000). A move from the wrong
 * status answers the common 409 naming the current status (docs/domain.md §3); the module's own code
 * tells a client that an amount no longer fits in exact cents.
 */
export const SettlementError = errcodes({
  AMOUNT_TOO_LARGE: [1_006_000_001, 'a settlement amount is larger than 2^53 - 1 cents (it cannot be held exactly)'],
});

export const settlementNotFound = () => notFound('settlement order');
export const detailNotFound = () => notFound('settlement detail');
export const detailOfAnother = (field: string) =>
  badRequest(`${field} is invalid: the detail belongs to another settlement order`);
export const wrongStatus = (status: number, action: string) =>
  conflict(
    `the settlement order is in status ${status} (${STATUS_NAMES[status] ?? 'unknown'}): it cannot be ${action}`,
  );
export const platformOnly = (what: string) => forbidden(`only platform users can ${what} a settlement order`);
export const merchantOnly = (what: string) =>
  forbidden(`only users of the settlement merchant can ${what} a settlement order`);
export const payAmountMismatch = (expected: number) =>
  badRequest(`amount is invalid: must equal the amount due, ${expected} cents`);
export const negativeActual = (detailId: number) =>
  badRequest(`details is invalid: detail ${detailId} would settle for less than 0`);
/** A recalculation that would leave a kept decrease larger than the detail's new amount. */
export const negativeAfterAfresh = (detailId: number, amount: number, decrease: number) =>
  conflict(
    `detail ${detailId} would settle for less than 0 after the recalculation (${amount} cents recalculated, a decrease of ${decrease} cents kept): lower its decrease with calcSettlementCard first`,
  );
/** `field` names the request's field that caused it; null when a recalculation did (409). */
export const totalBeyondPayable = (field: string | null, total: number) => {
  const why = `the order would total ${total} cents, more than the ${MAX_PAYABLE_CENTS} cents one payment can carry`;
  return field === null ? conflict(why) : badRequest(`${field} is invalid: ${why}`);
};
export const tooManyDecimals = (field: string) => badRequest(`${field} is invalid: must have at most 4 decimals`);
export const amountTooLarge = () =>
  new AppError(SettlementError.AMOUNT_TOO_LARGE, 'the settlement amount is larger than the service can hold exactly');
