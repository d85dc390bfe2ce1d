import { merchantDisabled } from './merchant.errors.js';

/** What other modules read of a merchant before adding a record under it. */
export interface MerchantState {
  name: string;
  status: number;
}

const ENABLED = 1;

/** Nothing new is added under a disabled merchant (1_022_000_001); its staff and verifiers cannot log in either. */
export function assertMerchantEnabled(merchant: MerchantState | null): void {
  if (merchant && merchant.status !== ENABLED) throw merchantDisabled(merchant.name);
}
