import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/**
 * The reads of the calculation (docs/domain.md §2), each an aggregate computed by the database: a month
 * costs one count over its models' valid cards and one pass over its checks, whatever the number of
 * card models (the scopes of that month) it allocates.
 */

export interface CardModelForCalc {
  id: number;
  name: string;
  price: number;
  validityMonths: number;
  allocationEnabled: boolean;
}

export interface ParkCheckCount {
  parkId: number;
  parkName: string;
  merchantId: number | null;
  shopId: number | null;
  checkNum: number;
}

/** Living card models among `ids`, or every allocation-enabled one when `ids` is null; by id. */
export async function findCardModels(db: Executor, ids: number[] | null): Promise<CardModelForCalc[]> {
  let q = db
    .selectFrom('card_model')
    .select(['id', 'name', 'price', 'validity_months', 'allocation_enabled'])
    .where('is_deleted', '=', false);
  q = ids === null ? q.where('allocation_enabled', '=', true) : q.where('id', 'in', ids.length ? ids : [0]);
  const rows = await q.orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    price: r.price,
    validityMonths: r.validity_months,
    allocationEnabled: r.allocation_enabled,
  }));
}

/**
 * validUserCount of each model: cards valid at some time in [start, end): activated before the month
 * ends, expiring at or after it starts, not disabled (status 3). The literal predicates match the
 * partial index card_allocation_valid_idx, so the counts are read from the index alone.
 */
export async function countValidUsers(
  db: Executor,
  cardModelIds: number[],
  start: Date,
  end: Date,
): Promise<Map<number, number>> {
  const r = await sql<{ card_model_id: number; n: number | string }>`
    select card_model_id, count(*) as n from card
    where card_model_id = any (${cardModelIds}::bigint[]) and status <> 3 and not is_deleted
      and expire_time >= ${start} and active_time < ${end}
    group by card_model_id`.execute(db);
  return new Map(r.rows.map((row) => [Number(row.card_model_id), Number(row.n)]));
}

/**
 * The parks of each model's settlement-way-5 rules, each with the sum of consume_num of that model's
 * living checks there in [start, end): one grouped pass over the month's checks for all the models,
 * by the (card_model_id, resource_id, check_time) index. Parks without checks answer 0. Ordered by
 * model, then park id.
 */
export async function parkCheckCounts(
  db: Executor,
  cardModelIds: number[],
  start: Date,
  end: Date,
): Promise<Map<number, ParkCheckCount[]>> {
  const r = await sql<{
    card_model_id: number;
    park_id: number;
    park_name: string;
    merchant_id: number | null;
    shop_id: number | null;
    check_num: number | string;
  }>`
    with parks as (
      select r.card_model_id, r.resource_id as park_id, s.name as park_name, s.merchant_id, s.shop_id
      from card_model_resource_rule r
      join spu s on s.id = r.resource_id and not s.is_deleted
      where r.card_model_id = any (${cardModelIds}::bigint[]) and r.settlement_way = 5 and not r.is_deleted
    ), checks as (
      select c.card_model_id, c.resource_id, sum(c.consume_num) as check_num
      from card_check c
      where c.card_model_id = any (${cardModelIds}::bigint[])
        and c.resource_id = any (array(select distinct park_id from parks))
        and c.check_time >= ${start} and c.check_time < ${end}
        and not c.is_deleted
      group by c.card_model_id, c.resource_id
    )
    select p.card_model_id, p.park_id, p.park_name, p.merchant_id, p.shop_id, coalesce(c.check_num, 0) as check_num
    from parks p left join checks c on c.card_model_id = p.card_model_id and c.resource_id = p.park_id
    order by p.card_model_id, p.park_id`.execute(db);
  const byModel = new Map<number, ParkCheckCount[]>();
  for (const row of r.rows) {
    const model = Number(row.card_model_id);
    let list = byModel.get(model);
    if (!list) byModel.set(model, (list = []));
    list.push({
      parkId: Number(row.park_id),
      parkName: row.park_name,
      merchantId: row.merchant_id === null ? null : Number(row.merchant_id),
      shopId: row.shop_id === null ? null : Number(row.shop_id),
      checkNum: Number(row.check_num),
    });
  }
  return byModel;
}
