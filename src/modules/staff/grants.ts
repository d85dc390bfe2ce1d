import type { Account } from '../../platform/http/context.js';
import { hasPermission, type Scope } from '../../platform/auth/permissions.js';
import type { Role } from './role.schemas.js';

/**
 * What an account may hand on: a permission it holds itself (`*` only by a holder of `*`, a module
 * wildcard only by a holder of that wildcard or `*`). Without this a merchant administrator could write
 * itself a role with `*`.
 */
export function canGrant(account: Account, permission: string): boolean {
  if (account.permissions.includes('*')) return true;
  if (permission === '*') return false;
  if (permission.endsWith(':*')) return account.permissions.includes(permission);
  return hasPermission(account, permission);
}

/** The first permission of the list the account may not grant, or null. */
export function firstUngrantable(account: Account, permissions: readonly string[]): string | null {
  return permissions.find((p) => !canGrant(account, p)) ?? null;
}

/** Whether the scope may change the role (the platform any; others only roles of their own merchant or shop). */
export function mayChangeRole(scope: Scope, role: Pick<Role, 'merchantId' | 'shopId'>): boolean {
  if (scope.kind === 'platform') return true;
  if (role.merchantId !== scope.merchantId) return false;
  return scope.kind === 'merchant' || role.shopId === scope.shopId;
}

/** Whether a role may be held by a user of this merchant and shop (a global role by anyone). */
export function roleFitsUser(
  role: Pick<Role, 'merchantId' | 'shopId'>,
  user: { merchantId: number | null; shopId: number | null },
): boolean {
  if (role.merchantId === null) return true;
  if (role.merchantId !== user.merchantId) return false;
  return role.shopId === null || role.shopId === user.shopId;
}
