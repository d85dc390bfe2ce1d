import { AppError, conflict, errcodes, forbidden, notFound } from '../../platform/errors.js';

/** Organisation administration refusals; its own range 1_022_000_000 (docs/errors.md). */
export const merchantNotFound = () => notFound('merchant');
export const merchantNameTaken = (name: string) => conflict(`a merchant named "${name}" already exists`);
export const onlyPlatformCreatesMerchants = () => forbidden('only platform users may add merchants');
export const onlyPlatformChangesStatus = () => forbidden('only platform users may enable or disable a merchant');
export const onlyPlatformRenames = () => forbidden('only platform users may rename a merchant or change its type');
/** Records cannot be added under a disabled merchant (its staff and verifiers cannot log in either). */
export const MerchantError = errcodes({
  MERCHANT_DISABLED: [1_022_000_001, 'the merchant is disabled: nothing new is added under it'],
});
export const MERCHANT_DISABLED = MerchantError.MERCHANT_DISABLED;
export const merchantDisabled = (name: string) =>
  new AppError(MERCHANT_DISABLED, `merchant "${name}" is disabled: enable it first`);
