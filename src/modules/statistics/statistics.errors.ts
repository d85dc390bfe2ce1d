import { forbidden, notFound } from '../../platform/errors.js';

/**
 * The statistics module's refusals. They use the common codes (400 naming the field, 403, 404,
 * docs/architecture.md §6); the module's range 1_012_000_000 (docs/errors.md) holds no code of its own.
 */
export const merchantNotFound = () => notFound('merchant (merchantId)');
export const shopNotFound = () => notFound('shop (shopId)');
export const cardModelNotFound = () => notFound('card model (cardModelId)');
export const otherMerchant = () => forbidden('the record belongs to another merchant');
export const otherShop = () => forbidden('the record belongs to another shop');
export const modelNotVisible = () => forbidden('the card model belongs to another merchant');
