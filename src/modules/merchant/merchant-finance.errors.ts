import { badRequest, conflict, notFound } from '../../platform/errors.js';

/** Finance-account refusals: common codes only (docs/errors.md, organisation administration). */
export const financeNotFound = () => notFound('merchant finance record');
export const ownerRequired = () => badRequest('merchantId is required (or shopId, whose merchant it takes)');
export const ownerFixed = (field: 'merchantId' | 'shopId') =>
  badRequest(
    `${field} is invalid: a finance record stays with its ${field === 'merchantId' ? 'merchant' : 'shop'}; delete it and add one for the other`,
  );
/** Names the kind, never the existing account's number (the caller may not be allowed to read it). */
export const accountTaken = (ebankType: number, shop: boolean) =>
  conflict(
    `the ${shop ? 'shop' : 'merchant'} already has a ${ebankType === 1 ? 'merchant-settlement' : 'sales-settlement'} account (ebankType ${ebankType}): update that one instead`,
  );
