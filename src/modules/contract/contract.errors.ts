import { badRequest, forbidden, notFound } from '../../platform/errors.js';

/** Merchant-contract refusals: common codes only (docs/errors.md, range 1_018_000_000 unused). */
export const contractNotFound = () => notFound('merchant contract');
export const partyNotFound = (field: string) => notFound(`${field}`);
export const shopNotOfMerchant = (shopField: string, merchantField: string) =>
  badRequest(`${shopField} is invalid: not a shop of ${merchantField}`);
export const samePartyTwice = () => badRequest('merchantB is invalid: party A and party B are the same');
export const endBeforeBegin = () => badRequest('endDate is invalid: it is before beginDate');
export const notAParty = () => forbidden('your merchant or shop is neither party A nor party B of this contract');
export const notTheOwner = () => forbidden('only the merchant (or shop) that keeps the contract may change it');
export const notVisible = () => forbidden('the record belongs to another merchant');
export const ownerOutsideScope = () => forbidden('the record belongs to another merchant');
