import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import { cardModelVisible, cardVisible } from '../card/index.js';

/**
 * What each statistic counts for a scope (docs/adr/0068-statistics-are-sql-aggregation-in-the-card-scope.md). Card figures follow the card
 * module's visibility (card-scope.ts): the platform every card; a merchant the cards it sold and the
 * cards of its own card models; a shop the cards it sold. Check figures: the platform every check; a
 * merchant the checks at its scenic spots and the checks of its own card models; a shop the checks at
 * its scenic spots. Written against the aliases `c` (card), `cm` (card_model), `s` (sku of the check).
 */
export { cardModelVisible, cardVisible };

export function checkVisible(scope: Scope, sku = 's', model = 'cm'): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  if (scope.kind === 'shop') return sql<SqlBool>`${sql.ref(`${sku}.shop_id`)} = ${scope.shopId}`;
  return sql<SqlBool>`(${sql.ref(`${sku}.merchant_id`)} = ${scope.merchantId} or ${sql.ref(`${model}.merchant_id`)} = ${scope.merchantId})`;
}

/** A resource (alias `sp`, its rule's model `cm`) listed in a scope's profit accounting. */
export function resourceVisible(scope: Scope, spu = 'sp', model = 'cm'): Expression<SqlBool> {
  if (scope.kind === 'platform') return sql<SqlBool>`true`;
  if (scope.kind === 'shop') return sql<SqlBool>`${sql.ref(`${spu}.shop_id`)} = ${scope.shopId}`;
  return sql<SqlBool>`(${sql.ref(`${spu}.merchant_id`)} = ${scope.merchantId} or ${sql.ref(`${model}.merchant_id`)} = ${scope.merchantId})`;
}
