import { AppError, conflict, forbidden, notFound } from '../../platform/errors.js';

/** Verifier administration refusals (organisation administration's range, docs/errors.md). */
export const checkerNotFound = () => notFound('verifier');
export const mobileInUse = (mobile: string) =>
  conflict(`an enabled verifier already uses mobile ${mobile}: disable that one first`);
export const merchantNotFound = () => notFound('merchant (merchantId)');
export const shopNotFound = () => notFound('shop (shopId) of the merchant');
export const placeOutsideScope = () => forbidden('you may only add verifiers to your own merchant or shop');
export const merchantRequired = () => new AppError(400, 'merchantId is required (or shopId)');
export const skuNotFound = (skuId: number) => notFound(`SKU ${skuId} of the verifier's merchant or shop`);
export const entranceNotFound = (entranceId: number, skuId: number) =>
  notFound(`entrance ${entranceId} of SKU ${skuId}`);
