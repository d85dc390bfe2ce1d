import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { CheckConflictRow } from './check-conflict.schemas.js';
import type { CheckConflict } from './check-conflict.js';

/**
 * card_check_conflict: checks an offline gate admitted although they broke a bound (written by the
 * check-in statement in its record mode); read here for a re-sent scan's answer and for the manage page.
 */

/** The conflicts recorded with each of these checks, in the order they were written. */
export async function conflictsOfChecks(
  db: Executor,
  checkIds: readonly number[],
): Promise<Map<number, CheckConflict[]>> {
  const found = new Map<number, CheckConflict[]>();
  if (checkIds.length === 0) return found;
  const rows = await db
    .selectFrom('card_check_conflict')
    .select(['check_id', 'kind', 'limit_value', 'count_value'])
    .where('check_id', 'in', [...new Set(checkIds)])
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const id = Number(r.check_id);
    const list = found.get(id) ?? [];
    list.push({ kind: r.kind, limit: r.limit_value, count: r.count_value });
    found.set(id, list);
  }
  return found;
}

export interface CheckConflictFilter {
  skuId?: number | null;
  kind?: number | null;
  cardNumber?: string | null;
  start: Date | null;
  end: Date | null;
}

/** A page of conflicts, newest first, scoped by the spot's merchant and shop as the conflict row keeps them. */
export function pageConflicts(
  db: Executor,
  f: CheckConflictFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<CheckConflictRow>> {
  let q = db
    .selectFrom('card_check_conflict as x')
    .innerJoin('card_check as cc', (j) =>
      j.onRef('cc.id', '=', 'x.check_id').onRef('cc.check_time', '=', 'x.check_time'),
    )
    .leftJoin('card as c', 'c.id', 'x.card_id')
    .leftJoin('sku as s', 's.id', 'x.sku_id')
    .leftJoin('sku_entrance as e', 'e.id', 'cc.entrance_id')
    .leftJoin('checker as k', 'k.id', 'x.checker_id')
    .select([
      'x.id',
      'x.kind',
      'x.limit_value',
      'x.count_value',
      'x.check_id',
      'x.check_time',
      'cc.is_deleted',
      'x.card_id',
      'c.card_number',
      'cc.tourist_name',
      'x.sku_id',
      's.sku_name',
      'cc.entrance_id',
      'e.entrance_name',
      'x.checker_id',
      'k.name as checker_name',
      'x.created_at',
    ])
    .where(scopeCondition(scope, 'x.merchant_id', 'x.shop_id'));
  if (f.skuId != null) q = q.where('x.sku_id', '=', f.skuId);
  if (f.kind != null) q = q.where('x.kind', '=', f.kind);
  if (f.cardNumber != null) q = q.where('c.card_number', '=', f.cardNumber);
  if (f.start) q = q.where('x.check_time', '>=', f.start);
  if (f.end) q = q.where('x.check_time', '<=', f.end);
  return paginate(db, q.orderBy('x.id', 'desc'), page, (r) => ({
    id: r.id,
    kind: r.kind,
    limit: r.limit_value,
    count: r.count_value,
    checkId: r.check_id,
    checkTime: formatDateTime(r.check_time),
    checkRevoked: r.is_deleted,
    cardId: r.card_id,
    cardNumber: r.card_number,
    holderName: r.tourist_name,
    skuId: r.sku_id,
    skuName: r.sku_name,
    entranceId: r.entrance_id,
    entranceName: r.entrance_name,
    checkerId: r.checker_id,
    checkerName: r.checker_name,
    createdTime: formatDateTime(r.created_at),
  }));
}
