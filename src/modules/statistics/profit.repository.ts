import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { DateRange } from '../../platform/date-range.js';
import type { Executor } from '../../platform/db/executor.js';
import { LIST_MAX_ROWS } from '../../platform/http/schemas.js';
import { cardModelVisible, cardVisible, resourceVisible } from './statistics-scope.js';
import { foldMark } from './check-rollup.repository.js';
import { splitUtcDays } from './utc-days.js';

/**
 * profitAccounting/cardModel. The cohort is the scope's activated cards of the card model (or of
 * every card model) activated within the range; its figures come from three aggregates, run side by
 * side on PostgreSQL: the cards (activations per channel, donations), their uses (entries per resource
 * and per card, bucketed by number of uses) and their bindings. Only the first reads the cards: the
 * uses come from the check roll-up's tables and the bindings from the holder table, which carry the
 * card's model, seller and activation (migrations 0021, 0022), so the cohort is a filter there.
 */

const num = (v: string | number | null | undefined) => (v == null ? 0 : Number(v));

export interface CohortFilter {
  cardModelId?: number | null;
  activeTime?: DateRange | null;
}

/**
 * The cohort's conditions on a row carrying a card's model, seller and activation under `alias`
 * (card, stat_check_rollup, stat_card_use, stat_holder), its model being `cm`. Whether the card lives
 * is the caller's condition (the statistics tables hold or mark only living cards).
 */
function cohort(alias: string, scope: Scope, f: CohortFilter): Expression<SqlBool> {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  const conds: Expression<SqlBool>[] = [sql<SqlBool>`${col('active_time')} is not null`, cardVisible(scope, alias)];
  if (f.cardModelId != null) conds.push(sql<SqlBool>`${col('card_model_id')} = ${f.cardModelId}`);
  if (f.activeTime)
    conds.push(sql<SqlBool>`${col('active_time')} between ${f.activeTime.start} and ${f.activeTime.end}`);
  return sql<SqlBool>`(${sql.join(conds, sql` and `)})`;
}

export async function findModel(
  db: Executor,
  id: number,
  scope: Scope,
): Promise<{ name: string; visible: boolean } | null> {
  const r = await db
    .selectFrom('card_model as cm')
    .select(['cm.name', sql<boolean>`${cardModelVisible(scope)}`.as('visible')])
    .where('cm.id', '=', id)
    .where('cm.is_deleted', '=', false)
    .executeTakeFirst();
  return r ? { name: r.name, visible: Boolean(r.visible) } : null;
}

export interface CardFigures {
  cardNoNum: number;
  active: number;
  donated: number;
  channels: Array<{ channel: number | null; activeNum: number }>;
}

/** Issued card numbers of the model(s) in scope, and the cohort's activations by channel. */
export async function cardFigures(db: Executor, scope: Scope, f: CohortFilter): Promise<CardFigures> {
  const issued: Expression<SqlBool>[] = [sql<SqlBool>`not c.is_deleted`, cardVisible(scope)];
  if (f.cardModelId != null) issued.push(sql<SqlBool>`c.card_model_id = ${f.cardModelId}`);
  const { rows } = await sql<{ channel: number | null; issued: string; active: string; donated: string }>`
    select c.channel, count(*) as issued,
      count(*) filter (where ${cohort('c', scope, f)}) as active,
      count(*) filter (where ${cohort('c', scope, f)} and c.is_donation) as donated
    from card c join card_model cm on cm.id = c.card_model_id
    where ${sql.join(issued, sql` and `)}
    group by c.channel
    order by c.channel nulls last`.execute(db);
  return {
    cardNoNum: rows.reduce((s, r) => s + num(r.issued), 0),
    active: rows.reduce((s, r) => s + num(r.active), 0),
    donated: rows.reduce((s, r) => s + num(r.donated), 0),
    channels: rows
      .filter((r) => num(r.active) > 0)
      .map((r) => ({ channel: r.channel == null ? null : Number(r.channel), activeNum: num(r.active) })),
  };
}

export interface UseFigures {
  /** entries per resource */
  byResource: Map<number, number>;
  /** cards by number of uses: index 1–6, 7 = more than six */
  buckets: number[];
  usedCards: number;
  entries: number;
}

/**
 * The cohort's living checks, exact whatever has been folded (check-rollup.ts): its entries per
 * resource from stat_resource_day for the whole UTC days of its activation range and from the
 * roll-up's rows for the rest (splitUtcDays), its per-card sums (stat_card_use), all filtered by
 * their card attributes, plus
 * the live tail beyond the mark (card_check's primary key, joined with its cards), read in one
 * statement (one snapshot). A card's uses are its folded sum and its tail added (a full join, the tail
 * being a few seconds of checks); cards are bucketed by them. Rows whose checks were all revoked are
 * skipped, so such a card is no used card.
 */
export async function useFigures(db: Executor, scope: Scope, f: CohortFilter): Promise<UseFigures> {
  const days = splitUtcDays(f.activeTime ?? null);
  const { rows } = await sql<{ by_resource: number; k: string; cards: string; n: string }>`
    with tail as materialized (
      select cc.card_id, cc.card_model_id, cc.resource_id, cc.consume_num as n
      from card_check cc
      join card c on c.id = cc.card_id and c.card_model_id = cc.card_model_id
      join card_model cm on cm.id = c.card_model_id
      where cc.id > ${foldMark} and not cc.is_deleted
        and not c.is_deleted and ${cohort('c', scope, f)}
    ),
    per_resource as (
      select d.resource_id, d.entries as n
      from stat_resource_day d join card_model cm on cm.id = d.card_model_id
      where ${days.whole('d.active_day')} and ${cardVisible(scope, 'd')} ${f.cardModelId != null ? sql`and d.card_model_id = ${f.cardModelId}` : sql``}
      union all
      select u.resource_id, u.entries
      from stat_check_rollup u join card_model cm on cm.id = u.card_model_id
      where u.counted and u.entries > 0 and ${days.partial('u.active_time')} and ${cohort('u', scope, f)}
      union all
      select resource_id, n from tail
    ),
    folded_cards as (
      select u.card_id, u.card_model_id, u.entries as n
      from stat_card_use u join card_model cm on cm.id = u.card_model_id
      where u.counted and u.entries > 0 and ${cohort('u', scope, f)}
    ),
    tail_cards as (select card_id, card_model_id, sum(n) as n from tail group by card_id, card_model_id),
    per_card as (
      select coalesce(fc.n, 0) + coalesce(tc.n, 0) as n
      from folded_cards fc full join tail_cards tc on tc.card_id = fc.card_id and tc.card_model_id = fc.card_model_id
    )
    select 1 as by_resource, resource_id as k, 0 as cards, sum(n) as n from per_resource group by resource_id
    union all
    select 0, least(n, 7), count(*), sum(n) from per_card group by least(n, 7)`.execute(db);
  const out: UseFigures = { byResource: new Map(), buckets: [0, 0, 0, 0, 0, 0, 0, 0], usedCards: 0, entries: 0 };
  for (const r of rows) {
    if (Number(r.by_resource) === 1) out.byResource.set(Number(r.k), num(r.n));
    else {
      out.buckets[Number(r.k)] = num(r.cards);
      out.usedCards += num(r.cards);
      out.entries += num(r.n);
    }
  }
  return out;
}

/**
 * The cohort's living bindings: cards bound, and distinct ID documents among them, from the holder
 * table (migration 0021: one row per living binding of a living card, with the card's attributes and
 * an md5 of the document). The documents are counted as they stream by in stat_holder_document_idx's
 * order (withAggregateMemory 'ordered'), neither hashed nor sorted; a (type, number) pair with a null
 * part is one document, as it was one value.
 */
export async function bindingFigures(
  db: Executor,
  scope: Scope,
  f: CohortFilter,
): Promise<{ cards: number; ids: number }> {
  const { rows } = await sql<{ cards: string | null; ids: string }>`
    select sum(n) as cards, count(*) as ids
    from (
      select h.document, count(*) as n
      from stat_holder h join card_model cm on cm.id = h.card_model_id
      where ${cohort('h', scope, f)}
      group by h.document
    ) d`.execute(db);
  return { cards: num(rows[0]?.cards), ids: num(rows[0]?.ids) };
}

export interface RuleResource {
  resourceId: number;
  resourceName: string;
  buyPrice: number | null;
  shopId: number | null;
  shopName: string | null;
  cityId: number | null;
  cityName: string | null;
}

/**
 * The resources of the living rules of the model (or of every model the scope sees), with their shop
 * and its city; for a merchant or shop user only its own resources and those of its own models. With
 * several models, buyPrice is given only when their rules agree on it.
 */
export async function ruleResources(db: Executor, scope: Scope, cardModelId: number | null): Promise<RuleResource[]> {
  const conds: Expression<SqlBool>[] = [
    sql<SqlBool>`not r.is_deleted`,
    sql<SqlBool>`not cm.is_deleted`,
    cardModelVisible(scope),
    resourceVisible(scope),
  ];
  if (cardModelId != null) conds.push(sql<SqlBool>`r.card_model_id = ${cardModelId}`);
  const { rows } = await sql<{
    id: number;
    name: string;
    buy_price: number | null;
    shop_id: number | null;
    shop_name: string | null;
    city_id: string | null;
    city_name: string | null;
  }>`
    select sp.id, sp.name,
      case when min(r.buy_price) = max(r.buy_price) and count(r.buy_price) = count(*) then min(r.buy_price) end as buy_price,
      sh.id as shop_id, sh.name as shop_name, rg.id as city_id, rg.name as city_name
    from card_model_resource_rule r
    join card_model cm on cm.id = r.card_model_id
    join spu sp on sp.id = r.resource_id
    left join shop sh on sh.id = sp.shop_id
    left join region rg on rg.id = case when sh.city_id ~ '^[0-9]{1,12}$' then sh.city_id::bigint end
    where ${sql.join(conds, sql` and `)}
    group by sp.id, sp.name, sh.id, sh.name, rg.id, rg.name
    order by sp.id
    limit ${LIST_MAX_ROWS}`.execute(db);
  return rows.map((r) => ({
    resourceId: Number(r.id),
    resourceName: r.name,
    buyPrice: r.buy_price == null ? null : Number(r.buy_price),
    shopId: r.shop_id == null ? null : Number(r.shop_id),
    shopName: r.shop_name,
    cityId: r.city_id == null ? null : Number(r.city_id),
    cityName: r.city_name,
  }));
}
