import { badRequest, forbidden, notFound } from '../../platform/errors.js';

/** Shop refusals: common codes only (docs/errors.md, range 1_017_000_000 unused). */
export const shopNotFound = () => notFound('shop');
export const merchantNotFound = () => notFound('merchant (merchantId)');
export const shopUsersCannot = (what: string) => forbidden(`shop users cannot ${what} shops`);
export const otherMerchant = () => forbidden('the record belongs to another merchant');
export const merchantFixed = () => badRequest('merchantId is invalid: a shop cannot move to another merchant');
