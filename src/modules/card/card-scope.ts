import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';

/**
 * Who sees which card models: the platform all; a merchant its own and those admitting one of its
 * resources (its scenic spots take their check-ins); a shop user its merchant's own and those
 * admitting one of its shop's resources. `m` is the card_model alias.
 */
export function cardModelVisible(scope: Scope, alias = 'cm'): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  const m = sql.ref(`${alias}.merchant_id`);
  const id = sql.ref(`${alias}.id`);
  const resource =
    scope.kind === 'merchant' ? sql`sp.merchant_id = ${scope.merchantId}` : sql`sp.shop_id = ${scope.shopId}`;
  return sql<SqlBool>`(${m} = ${scope.merchantId} or exists (
    select 1 from card_model_resource_rule rr join spu sp on sp.id = rr.resource_id
    where rr.card_model_id = ${id} and not rr.is_deleted and ${resource}))`;
}

/**
 * Who sees which cards: the platform all; a merchant the cards it holds or sold and the cards of its
 * own card models; a shop the cards it holds or sold. `c` is the card alias, `cm` its model's.
 */
export function cardVisible(scope: Scope, card = 'c', model = 'cm'): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  if (scope.kind === 'shop') return sql<SqlBool>`${sql.ref(`${card}.shop_id`)} = ${scope.shopId}`;
  return sql<SqlBool>`(${sql.ref(`${card}.merchant_id`)} = ${scope.merchantId} or ${sql.ref(`${model}.merchant_id`)} = ${scope.merchantId})`;
}

/** Whether the scope may change a card model (the platform any; a merchant user its merchant's). */
export function mayChangeModel(scope: Scope, model: { merchantId: number | null }): boolean {
  return scope.kind === 'platform' || (scope.kind === 'merchant' && model.merchantId === scope.merchantId);
}
