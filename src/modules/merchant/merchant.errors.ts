import { AppError, conflict, forbidden, notFound } from '../../platform/errors.js';

/** Organisation administration refusals; its own range 1_022_000_000 (docs/errors.md). */
export const merchantNotFound = () => notFound('merchant');
export const merchantNameTaken = (name: string) => conflict(`a merchant named "${name}" already exists`);
export const onlyPlatformCreatesMerchants = () => forbidden('only platform users may add merchants');
export const onlyPlatformChangesStatus = () => forbidden('only platform users may enable or disable a merchant');
export const onlyPlatformRenames = () => forbidden('only platform users may rename a merchant or change its type');
/** Records cannot be added under a disabled merchant (its staff and verifiers cannot log in either). */
export const MERCHANT_DISABLED = 1_022_000_001;
export const merchantDisabled = (name: string) => new AppError(MERCHANT_DISABLED, `merchant "${name}" is disabled: enable it first`);
