import { forbidden } from '../errors.js';
import { UserType, type Account } from '../http/context.js';

/** `*` grants everything; `region:*` grants every region permission. */
export function hasPermission(account: Account, permission: string): boolean {
  const perms = account.permissions;
  if (perms.includes('*') || perms.includes(permission)) return true;
  const colon = permission.indexOf(':');
  return colon > 0 && perms.includes(permission.slice(0, colon) + ':*');
}

/** The records a staff account may see: all, one merchant's, or one shop's. */
export type Scope =
  | { kind: 'platform' }
  | { kind: 'merchant'; merchantId: number }
  | { kind: 'shop'; merchantId: number; shopId: number };

export function scopeOf(account: Account): Scope {
  if (account.kind === 'admin' && account.userType === UserType.PLATFORM) return { kind: 'platform' };
  if (account.userType === UserType.SHOP) {
    // A shop user without its shop sees nothing: never widened to its merchant's records.
    if (account.merchantId == null || account.shopId == null)
      throw forbidden('this shop account is not attached to a shop');
    return { kind: 'shop', merchantId: account.merchantId, shopId: account.shopId };
  }
  if (account.merchantId != null) return { kind: 'merchant', merchantId: account.merchantId };
  // An account tied to nothing sees nothing rather than everything.
  throw forbidden('this account is not attached to a merchant or shop');
}

/** Refuses a record that lies outside the account's scope (403, docs/architecture.md §5.6). */
export function assertInScope(account: Account, record: { merchantId: number | null; shopId?: number | null }): void {
  const scope = scopeOf(account);
  if (scope.kind === 'platform') return;
  if (record.merchantId !== scope.merchantId) throw forbidden('the record belongs to another merchant');
  if (scope.kind === 'shop' && record.shopId !== scope.shopId) throw forbidden('the record belongs to another shop');
}
