import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { badRequest, forbidden, notFound, type AppError } from '../../platform/errors.js';
import { findMerchantState, findPlatformMerchantId, findShopMerchant } from './merchant.repository.js';
import { assertMerchantEnabled } from './merchant-state.js';

/** The merchant (and perhaps shop) a new record belongs to. */
export interface RecordOwner {
  merchantId: number;
  shopId: number | null;
}

/**
 * The owner of a new record that belongs to a merchant or one of its shops (a top-level department, a
 * finance account): what the request names, within the caller's scope. A shop user's records are its
 * shop's; a merchant user's its merchant's, or one of its shops' when it names one; platform staff name
 * the merchant or shop, else the platform's own merchant (merchant type 1) is taken. Another
 * merchant's id is refused before any shop is looked up, so nothing of another merchant is revealed.
 * The merchant must be enabled (1_022_000_001).
 */
export async function resolveRecordOwner(
  trx: Executor,
  scope: Scope,
  requested: { merchantId?: number | null; shopId?: number | null },
  ownerRequired: () => AppError,
): Promise<RecordOwner> {
  let merchantId = requested.merchantId ?? null;
  if (scope.kind !== 'platform' && merchantId !== null && merchantId !== scope.merchantId) throw notYourMerchant();
  const shopId = requested.shopId ?? (scope.kind === 'shop' ? scope.shopId : null);
  if (shopId !== null) {
    const shopMerchant = await findShopMerchant(trx, shopId);
    if (shopMerchant === null) throw notFound('shop (shopId)');
    if (merchantId !== null && merchantId !== shopMerchant)
      throw badRequest('shopId is invalid: the shop belongs to another merchant');
    merchantId = shopMerchant;
  }
  if (scope.kind !== 'platform') merchantId ??= scope.merchantId;
  else merchantId ??= await findPlatformMerchantId(trx);
  if (merchantId === null) throw ownerRequired();
  if (scope.kind !== 'platform' && merchantId !== scope.merchantId) throw notYourMerchant();
  if (scope.kind === 'shop' && shopId !== scope.shopId) throw forbidden('the record belongs to another shop');
  const merchant = await findMerchantState(trx, merchantId);
  if (!merchant) throw notFound('merchant (merchantId)');
  assertMerchantEnabled(merchant);
  return { merchantId, shopId };
}

const notYourMerchant = () => forbidden('the record belongs to another merchant');
