// The merchant module's front door: the only file other modules import (docs/architecture.md §4).
export { merchantModule } from './merchant.module.js';
export { MerchantFinance } from './merchant-finance.schemas.js';
export { assertMerchantEnabled, type MerchantState } from './merchant-state.js';
export { MerchantError } from './merchant.errors.js';
export { findMerchantState, insertMerchant, isPlatformMerchant, setMerchantStatus } from './merchant.repository.js';
export { resolveRecordOwner } from './record-owner.js';
export { settlementAccount } from './settlement-account.js';
