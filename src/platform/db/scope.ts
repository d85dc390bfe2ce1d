import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../auth/permissions.js';

/**
 * The WHERE condition that keeps a query inside a staff account's scope (docs/architecture.md §5.6):
 * everything for the platform, the merchant's rows for a merchant user, the shop's rows for a shop
 * user. Repositories add it to their queries: `.where(scopeCondition(scope, 'sku.merchant_id', 'sku.shop_id'))`.
 * Without a shop column a shop user is limited to its merchant's rows.
 */
export function scopeCondition(scope: Scope, merchantColumn: string, shopColumn?: string): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  const merchant = sql<SqlBool>`${sql.ref(merchantColumn)} = ${scope.merchantId}`;
  if (scope.kind === 'merchant' || !shopColumn) return merchant;
  return sql<SqlBool>`(${merchant} and ${sql.ref(shopColumn)} = ${scope.shopId})`;
}
