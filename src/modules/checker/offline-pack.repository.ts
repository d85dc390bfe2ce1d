import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';

/**
 * The reads of an offline pack (docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md). Cards are
 * read in keyset batches on card_pack_idx (card model, id), as the exports read (PGlite streams no
 * cursor); a delta finds what changed through the updated_at indexes of migration 0034.
 */

/** A SKU the verifier is posted at, with the gates its relations name (allGates: a relation names none). */
export interface PackSpot {
  skuId: number;
  name: string;
  resourceId: number;
  resourceName: string;
  allGates: boolean;
  gates: Array<{ id: number; name: string }>;
}

export interface PackRule {
  modelId: number;
  modelName: string;
  resourceId: number;
  dailyLimit: number;
}

/** The verifier's spots (living SKUs of its checker_relation rows) and their living gates it may use. */
export async function readPackSpots(db: Executor, checkerId: number): Promise<PackSpot[]> {
  const r = await sql<{
    sku_id: number;
    sku_name: string;
    resource_id: number;
    resource_name: string;
    all_gates: boolean;
    gate_id: number | null;
    gate_name: string | null;
  }>`
    with posts as (
      select r.sku_id, bool_or(r.entrance_id is null) as all_gates, array_agg(r.entrance_id) as named
      from checker_relation r where r.checker_id = ${checkerId} group by r.sku_id
    )
    select s.id as sku_id, s.sku_name, s.goods_id as resource_id, p.name as resource_name, po.all_gates,
      e.id as gate_id, e.entrance_name as gate_name
    from posts po
    join sku s on s.id = po.sku_id and not s.is_deleted
    join spu p on p.id = s.goods_id
    left join sku_entrance e on e.sku_id = s.id and not e.is_deleted and (po.all_gates or e.id = any(po.named))
    order by s.id, e.id`.execute(db);
  const spots = new Map<number, PackSpot>();
  for (const row of r.rows) {
    const id = Number(row.sku_id);
    let spot = spots.get(id);
    if (!spot) {
      spot = {
        skuId: id,
        name: row.sku_name,
        resourceId: Number(row.resource_id),
        resourceName: row.resource_name,
        allGates: row.all_gates,
        gates: [],
      };
      spots.set(id, spot);
    }
    if (row.gate_id !== null) spot.gates.push({ id: Number(row.gate_id), name: row.gate_name ?? '' });
  }
  return [...spots.values()];
}

/** The living rules of card models for these resources: per model × resource, the daily limit. */
export async function readPackRules(db: Executor, resourceIds: number[]): Promise<PackRule[]> {
  if (resourceIds.length === 0) return [];
  const r = await sql<{ model_id: number; model_name: string; resource_id: number; daily_limit: number }>`
    select rr.card_model_id as model_id, m.name as model_name, rr.resource_id, rr.daily_check_limit as daily_limit
    from card_model_resource_rule rr
    join card_model m on m.id = rr.card_model_id
    where rr.resource_id = any(${resourceIds}::bigint[]) and not rr.is_deleted
    order by rr.card_model_id, rr.resource_id`.execute(db);
  return r.rows.map((x) => ({
    modelId: Number(x.model_id),
    modelName: x.model_name,
    resourceId: Number(x.resource_id),
    dailyLimit: x.daily_limit,
  }));
}

/** The check times a day's checks can have (± a day for any zone): that month's partition only (ADR 0100). */
const aroundDay = (day: string) =>
  sql`k.check_time >= (${day}::date - 1)::timestamptz and k.check_time < (${day}::date + 2)::timestamptz`;

/**
 * Entries used on `day` per card and resource, as check-in counts them (docs/domain.md §4 step 4): the
 * counter row, or for a card without one the day's living checks. Bounded by the day's checks at
 * these resources, not by the cards, so it is read whole before the cards are streamed.
 */
export async function readUsage(
  db: Executor,
  day: string,
  resourceIds: number[],
): Promise<Map<number, Array<[number, number]>>> {
  const usage = new Map<number, Array<[number, number]>>();
  if (resourceIds.length === 0) return usage;
  const r = await sql<{ card_id: number; resource_id: number; used: number }>`
    select d.card_id, d.resource_id, d.used from card_check_day_count d
    where d.check_date = ${day}::date and d.resource_id = any(${resourceIds}::bigint[]) and d.used > 0
    union all
    select k.card_id, k.resource_id, sum(k.consume_num)::integer from card_check k
    where ${aroundDay(day)} and k.check_date = ${day}::date and k.resource_id = any(${resourceIds}::bigint[]) and not k.is_deleted
      and not exists (
        select 1 from card_check_day_count d where d.card_id = k.card_id and d.resource_id = k.resource_id and d.check_date = ${day}::date
      )
    group by k.card_id, k.resource_id`.execute(db);
  for (const row of r.rows) {
    const id = Number(row.card_id);
    const list = usage.get(id);
    const entry: [number, number] = [Number(row.resource_id), row.used];
    if (list) list.push(entry);
    else usage.set(id, [entry]);
  }
  return usage;
}

/** The highest check id of the day so far (0 for none): a delta sends the cards of checks above it. */
export async function maxCheckIdOfDay(db: Executor, day: string): Promise<number> {
  const r = await sql<{ id: string | number | null }>`
    select max(k.id) as id from card_check k where ${aroundDay(day)}`.execute(db);
  return Number(r.rows[0]?.id ?? 0);
}

export interface PackCardRow {
  id: number;
  modelId: number;
  cardNumber: string;
  holderName: string | null;
  /** epoch ms */
  activeMs: number;
  expireMs: number | null;
}

interface CardRow {
  id: number;
  card_model_id: number;
  card_number: string;
  holder_name: string | null;
  active_ms: number;
  expire_ms: number | null;
}

const toCard = (r: CardRow): PackCardRow => ({
  id: Number(r.id),
  modelId: Number(r.card_model_id),
  cardNumber: r.card_number,
  holderName: r.holder_name,
  activeMs: r.active_ms,
  expireMs: r.expire_ms,
});

/** Card validity as epoch milliseconds, computed by the database: a million Dates are not parsed from text. */
const validity = sql`floor(extract(epoch from c.active_time) * 1000)::float8 as active_ms,
  floor(extract(epoch from c.expire_time) * 1000)::float8 as expire_ms`;

/**
 * The next batch of admissible cards of one model after card `after`, in id order: bound (status 2
 * and a living binding), not deleted, activated, not expired before `now`. One model per statement:
 * a range scan of card_pack_idx (model, id) in the index's order; with several models (`= any`)
 * PostgreSQL 15 sorts every remaining card of them for each batch.
 */
export async function readPackCards(
  db: Executor,
  q: { modelId: number; after: number; limit: number; now: Date },
): Promise<PackCardRow[]> {
  const r = await sql<CardRow>`
    select c.id, c.card_model_id, c.card_number, b.name as holder_name, ${validity}
    from card c
    join card_binding b on b.card_id = c.id and not b.is_deleted
    where c.status = 2 and not c.is_deleted and c.card_model_id = ${q.modelId} and c.id > ${q.after}
      -- said of the binding too: a merge join on card_id then starts at the batch, not at the first card
      and b.card_id > ${q.after}
      and c.active_time is not null and (c.expire_time is null or c.expire_time >= ${q.now})
    order by c.id
    limit ${q.limit}`.execute(db);
  return r.rows.map(toCard);
}

/**
 * The cards of these models a delta must send again: status, validity or binding changed after
 * `since`, or today's entries changed (a counter raised or given back after `since`, or a check above
 * `checkId` of a card without a counter). Ids only, in id order.
 */
export async function changedCardIds(
  db: Executor,
  q: { models: number[]; resourceIds: number[]; since: Date; day: string; checkId: number },
): Promise<number[]> {
  if (q.models.length === 0) return [];
  const r = await sql<{ id: number }>`
    select c.id from (
      select id from card where updated_at > ${q.since}
      union
      select card_id from card_binding where updated_at > ${q.since}
      union
      select d.card_id from card_check_day_count d
      where d.check_date = ${q.day}::date and d.updated_at > ${q.since} and d.resource_id = any(${q.resourceIds}::bigint[])
      union
      select k.card_id from card_check k
      where k.id > ${q.checkId} and ${aroundDay(q.day)} and k.check_date = ${q.day}::date
        and k.resource_id = any(${q.resourceIds}::bigint[])
    ) changed
    join card c on c.id = changed.id and c.card_model_id = any(${q.models}::bigint[])
    order by c.id`.execute(db);
  return r.rows.map((x) => Number(x.id));
}

/**
 * These cards as a delta sends them: the card, or null when it is no longer admissible (a tombstone).
 * A card never activated or never bound (no binding row, living or deleted) was in no pack, so it gets
 * no tombstone: a batch of new cards, or a day of unbound ones changing, would otherwise fill a delta
 * with tombstones of cards no gate holds.
 */
export async function readCardsByIds(
  db: Executor,
  ids: number[],
  now: Date,
): Promise<Array<{ id: number; cardNumber: string; card: PackCardRow | null }>> {
  if (ids.length === 0) return [];
  const r = await sql<CardRow & { admissible: boolean }>`
    select c.id, c.card_model_id, c.card_number, b.name as holder_name, ${validity},
      (c.status = 2 and not c.is_deleted and b.id is not null and c.active_time is not null
        and (c.expire_time is null or c.expire_time >= ${now})) as admissible
    from card c
    left join card_binding b on b.card_id = c.id and not b.is_deleted
    where c.id = any(${ids}::bigint[])
      and c.active_time is not null and exists (select 1 from card_binding h where h.card_id = c.id)
    order by c.id`.execute(db);
  return r.rows.map((x) => ({
    id: Number(x.id),
    cardNumber: x.card_number,
    card: x.admissible ? toCard(x) : null,
  }));
}
