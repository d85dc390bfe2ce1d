import type { Executor } from '../../platform/db/executor.js';
import { formatDateTime } from '../../platform/time.js';
import type { Rule, RulePrice } from './card-rule.schemas.js';

const num = (v: string | null): number | null => (v == null ? null : Number(v));

function ruleQuery(db: Executor) {
  return db
    .selectFrom('card_model_resource_rule as r')
    .innerJoin('spu as sp', 'sp.id', 'r.resource_id')
    .leftJoin('shop as s', 's.id', 'sp.shop_id')
    .select([
      'r.id',
      'r.card_model_id',
      'r.resource_id',
      'r.settlement_way',
      'r.buy_price',
      'r.settlement_factor',
      'r.buyout_amount',
      'r.share_percent',
      'r.daily_check_limit',
      'r.created_at',
      'r.updated_at',
      'sp.name as resource_name',
      'sp.resource_type',
      'sp.merchant_id',
      'sp.shop_id',
      's.name as shop_name',
    ])
    .where('r.is_deleted', '=', false);
}

type RuleRow = Awaited<ReturnType<ReturnType<typeof ruleQuery>['executeTakeFirstOrThrow']>>;

function toRule(r: RuleRow, prices: RulePrice[]): Rule {
  return {
    id: r.id,
    cardModelId: r.card_model_id,
    resourceId: r.resource_id,
    resourceName: r.resource_name,
    resourceType: r.resource_type,
    merchantId: r.merchant_id,
    shopId: r.shop_id,
    shopName: r.shop_name,
    settlementWay: String(r.settlement_way),
    buyPrice: r.buy_price,
    settlementFactor: Number(r.settlement_factor),
    buyoutAmount: r.buyout_amount,
    sharePercent: num(r.share_percent),
    dailyCheckLimit: r.daily_check_limit,
    prices,
    createdTime: formatDateTime(r.created_at),
    updatedTime: formatDateTime(r.updated_at),
  };
}

async function pricesOf(db: Executor, ruleIds: number[]): Promise<Map<number, RulePrice[]>> {
  const out = new Map<number, RulePrice[]>(ruleIds.map((id) => [id, []]));
  if (ruleIds.length === 0) return out;
  const rows = await db
    .selectFrom('card_model_resource_price')
    .selectAll()
    .where('rule_id', 'in', ruleIds)
    .orderBy('start_date')
    .orderBy('id')
    .execute();
  for (const p of rows) out.get(p.rule_id)?.push(toPrice(p));
  return out;
}

function toPrice(p: {
  id: number;
  rule_id: number;
  start_date: string;
  end_date: string;
  price: number;
  settlement_factor: string;
}): RulePrice {
  return {
    id: p.id,
    ruleId: p.rule_id,
    startDate: p.start_date,
    endDate: p.end_date,
    price: p.price,
    settlementFactor: Number(p.settlement_factor),
  };
}

/** A living rule with its prices, locked for the rest of the transaction when `forUpdate`. */
export async function findRule(db: Executor, id: number, forUpdate = false): Promise<Rule | null> {
  if (forUpdate)
    await db.selectFrom('card_model_resource_rule').select('id').where('id', '=', id).forUpdate().execute();
  const r = await ruleQuery(db).where('r.id', '=', id).executeTakeFirst();
  return r ? toRule(r, (await pricesOf(db, [id])).get(id)!) : null;
}

export async function listRules(db: Executor, cardModelId: number): Promise<Rule[]> {
  const rows = await ruleQuery(db).where('r.card_model_id', '=', cardModelId).orderBy('r.id').execute();
  const prices = await pricesOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toRule(r, prices.get(r.id)!));
}

export interface RuleValues {
  settlementWay: number;
  buyPrice: number | null;
  settlementFactor: number;
  buyoutAmount: number | null;
  sharePercent: number | null;
  dailyCheckLimit: number;
}

const ruleColumns = (v: RuleValues) => ({
  settlement_way: v.settlementWay,
  buy_price: v.buyPrice,
  settlement_factor: v.settlementFactor,
  buyout_amount: v.buyoutAmount,
  share_percent: v.sharePercent,
  daily_check_limit: v.dailyCheckLimit,
});

export const RULE_INDEX = 'card_model_rule_uq';

export async function insertRule(
  db: Executor,
  cardModelId: number,
  resourceId: number,
  v: RuleValues,
  by: number | null,
): Promise<number> {
  const r = await db
    .insertInto('card_model_resource_rule')
    .values({ card_model_id: cardModelId, resource_id: resourceId, ...ruleColumns(v), created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateRule(db: Executor, id: number, v: RuleValues, by: number): Promise<void> {
  await db
    .updateTable('card_model_resource_rule')
    .set({ ...ruleColumns(v), updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function softDeleteRule(db: Executor, id: number, by: number): Promise<void> {
  await db
    .updateTable('card_model_resource_rule')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function findResource(
  db: Executor,
  id: number,
): Promise<{ name: string; resourceType: number; merchantId: number } | null> {
  const r = await db
    .selectFrom('spu')
    .select(['name', 'resource_type', 'merchant_id'])
    .where('id', '=', id)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ? { name: r.name, resourceType: r.resource_type, merchantId: r.merchant_id } : null;
}

export async function findPrice(db: Executor, id: number): Promise<RulePrice | null> {
  const p = await db.selectFrom('card_model_resource_price').selectAll().where('id', '=', id).executeTakeFirst();
  return p ? toPrice(p) : null;
}

/** The first period of the rule (other than `exceptId`) sharing a day with [start, end]. */
export async function overlappingPrice(
  db: Executor,
  ruleId: number,
  start: string,
  end: string,
  exceptId: number | null,
): Promise<RulePrice | null> {
  let q = db
    .selectFrom('card_model_resource_price')
    .selectAll()
    .where('rule_id', '=', ruleId)
    .where('start_date', '<=', end)
    .where('end_date', '>=', start);
  if (exceptId !== null) q = q.where('id', '<>', exceptId);
  const p = await q.orderBy('start_date').limit(1).executeTakeFirst();
  return p ? toPrice(p) : null;
}

export interface PriceValues {
  startDate: string;
  endDate: string;
  price: number;
  settlementFactor: number;
}

export async function insertPrice(db: Executor, ruleId: number, v: PriceValues, by: number | null): Promise<number> {
  const r = await db
    .insertInto('card_model_resource_price')
    .values({
      rule_id: ruleId,
      start_date: v.startDate,
      end_date: v.endDate,
      price: v.price,
      settlement_factor: v.settlementFactor,
      created_by: by,
      updated_by: by,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updatePrice(db: Executor, id: number, v: PriceValues, by: number): Promise<void> {
  await db
    .updateTable('card_model_resource_price')
    .set({
      start_date: v.startDate,
      end_date: v.endDate,
      price: v.price,
      settlement_factor: v.settlementFactor,
      updated_by: by,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

export async function deletePrice(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('card_model_resource_price').where('id', '=', id).execute();
}
