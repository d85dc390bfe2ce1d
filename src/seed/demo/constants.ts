import { localOpenId } from '../../platform/wechat/local-provider.js';

/** The demo logins. These passwords exist only in demo data. */
export const DEMO_PASSWORD = 'Demo@2026';
export const DEMO_PLATFORM_USER = 'platform01';
export const DEMO_MERCHANT_USER = 'merchant01';
export const DEMO_SHOP_USER = 'shop01';
export const DEMO_VERIFIER_MOBILE = '13800000001';
export const DEMO_MEMBER_CODE = 'demo-member-1';
export const DEMO_MEMBER_OPEN_ID = localOpenId(DEMO_MEMBER_CODE);

export const DEFAULT_SCALE = 100_000;
export const DEFAULT_SEED = 1;
/** Months of history before the reference date: two years, three from LONG_HISTORY_SCALE check-ins on. */
export const HISTORY_MONTHS = 24;
export const LONG_HISTORY_MONTHS = 36;
/** From about this many check-ins the data set is "three years of a province" (issue 38). */
export const LONG_HISTORY_SCALE = 50_000_000;

export function historyMonths(scale: number): number {
  return scale >= LONG_HISTORY_SCALE ? LONG_HISTORY_MONTHS : HISTORY_MONTHS;
}
/** Check-ins per card, roughly: sets how many cards a scale needs. */
export const CHECKS_PER_CARD = 8;
export const MIN_CARDS = 300;
