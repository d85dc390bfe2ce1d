/**
 * What other modules read of a merchant's finance accounts (their way in; the repository is the
 * merchant module's own): the account a settlement order is paid into (spec B 4.3 rule 3), the
 * merchant's own merchant-settlement account, or null when it keeps none through
 * /manage-api/merchantFinance.
 */
export { settlementAccountOf as settlementAccount } from './merchant-finance.repository.js';
