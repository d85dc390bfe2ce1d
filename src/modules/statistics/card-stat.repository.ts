import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { DateRange } from '../../platform/date-range.js';
import type { Executor } from '../../platform/db/executor.js';
import { containsPattern } from '../../platform/db/text-match.js';
import { pageWindow, type Page, type PageRequest } from '../../platform/http/paging.js';
import type { CardActiveStat, HomeCheckNum, HomeSalesAmount } from './statistics.schemas.js';
import { cardVisible, checkVisible } from './statistics-scope.js';
import { foldMark } from './check-rollup.repository.js';
import { splitUtcDays } from './utc-days.js';

/** Card and check aggregates: each one SQL statement; no card or check row reaches Node. */

const and = (conds: Expression<SqlBool>[]) => sql<SqlBool>`(${sql.join(conds, sql` and `)})`;
const num = (v: string | number | null | undefined) => (v == null ? 0 : Number(v));

export interface SellerFilter {
  merchantId?: number | null;
  shopId?: number | null;
  activeTime?: DateRange | null;
  /** only cards in force at `now`: not disabled, not expired */
  inForceAt?: Date | null;
}

/** Activated cards (alias `c`, model `cm`) of the scope matching the filter. */
function activatedCards(scope: Scope, f: SellerFilter): Expression<SqlBool> {
  const conds: Expression<SqlBool>[] = [
    sql<SqlBool>`not c.is_deleted`,
    sql<SqlBool>`c.active_time is not null`,
    cardVisible(scope),
  ];
  if (f.merchantId != null) conds.push(sql<SqlBool>`c.merchant_id = ${f.merchantId}`);
  if (f.shopId != null) conds.push(sql<SqlBool>`c.shop_id = ${f.shopId}`);
  if (f.activeTime) conds.push(sql<SqlBool>`c.active_time between ${f.activeTime.start} and ${f.activeTime.end}`);
  if (f.inForceAt)
    conds.push(sql<SqlBool>`c.status in (1, 2) and (c.expire_time is null or c.expire_time >= ${f.inForceAt})`);
  return and(conds);
}

export interface ModelCount {
  cardModelId: number;
  cardModelName: string;
  activeNum: number;
}

/** statCardIssue / statCardStat / the export: activated cards per card model, by model id. */
export async function countByModel(
  db: Executor,
  scope: Scope,
  f: SellerFilter,
  afterModelId = 0,
  limit = 5000,
): Promise<ModelCount[]> {
  const { rows } = await sql<{ id: number; name: string; n: string }>`
    select cm.id, cm.name, g.n
    from (
      select c.card_model_id, count(*) as n
      from card c join card_model cm on cm.id = c.card_model_id
      where ${activatedCards(scope, f)} and c.card_model_id > ${afterModelId}
      group by c.card_model_id
    ) g
    join card_model cm on cm.id = g.card_model_id
    order by cm.id
    limit ${limit}`.execute(db);
  return rows.map((r) => ({ cardModelId: Number(r.id), cardModelName: r.name, activeNum: num(r.n) }));
}

export interface ActiveStatFilter {
  cardModelId?: number | null;
  donation?: boolean | null;
  byMonth: boolean;
  activeTime?: DateRange | null;
  businessName?: string | null;
  activeByName?: string | null;
  now: Date;
}

/**
 * statCardModel: activations per model × seller (merchant and shop) × donation × sales account ×
 * day or month, with the cards' current state. The state counts partition activeCount: disabled
 * (status 3), else expired (status 4 or past expire_time), else unbound (1), else bound.
 *
 * One statement answers the page and the number of groups: the groups are computed once (grouped on
 * the period's timestamp, not its text, so the aggregate hashes cheaply), named, filtered by name,
 * counted, and the page is cut from them. A page past the end still carries the total.
 */
export async function pageActiveStat(
  db: Executor,
  scope: Scope,
  f: ActiveStatFilter,
  page: PageRequest,
): Promise<Page<CardActiveStat>> {
  const conds: Expression<SqlBool>[] = [
    sql<SqlBool>`not c.is_deleted`,
    sql<SqlBool>`c.active_time is not null`,
    cardVisible(scope),
  ];
  if (f.cardModelId != null) conds.push(sql<SqlBool>`c.card_model_id = ${f.cardModelId}`);
  if (f.donation != null) conds.push(sql<SqlBool>`c.is_donation = ${f.donation}`);
  if (f.activeTime) conds.push(sql<SqlBool>`c.active_time between ${f.activeTime.start} and ${f.activeTime.end}`);
  const unit = f.byMonth ? sql.lit('month') : sql.lit('day');
  const format = f.byMonth ? sql.lit('YYYY-MM') : sql.lit('YYYY-MM-DD');
  const expired = sql`(c.status = 4 or c.expire_time < ${f.now})`;
  const named: Expression<SqlBool>[] = [sql<SqlBool>`true`];
  const business = f.businessName?.trim();
  if (business) named.push(sql<SqlBool>`coalesce(sh.name, me.name) ilike ${containsPattern(business)}`);
  const seller = f.activeByName?.trim();
  if (seller) named.push(sql<SqlBool>`coalesce(u.nickname, u.username) ilike ${containsPattern(seller)}`);
  const { limit, offset } = pageWindow(page);
  const { rows } = await sql<ActiveRow>`
    with g as materialized (
      select c.card_model_id, c.merchant_id, c.shop_id, c.is_donation, c.active_by,
        date_trunc(${unit}, c.active_time) as period,
        count(*) as active_count,
        count(*) filter (where c.status = 3) as disable_count,
        count(*) filter (where c.status <> 3 and ${expired}) as expire_count,
        count(*) filter (where c.status = 1 and not ${expired}) as no_bind_count,
        count(*) filter (where c.status = 2 and not ${expired}) as bind_count,
        count(*) filter (where c.medium = 1) as chip_count,
        count(*) filter (where c.medium = 2) as electron_count
      from card c join card_model cm on cm.id = c.card_model_id
      where ${and(conds)}
      group by c.card_model_id, c.merchant_id, c.shop_id, c.is_donation, c.active_by, date_trunc(${unit}, c.active_time)
    ),
    n as materialized (
      select g.*, cm.name as card_model_name, coalesce(g.shop_id, g.merchant_id) as business_id,
        coalesce(sh.name, me.name) as business_name, coalesce(u.nickname, u.username) as active_by_name
      from g
      join card_model cm on cm.id = g.card_model_id
      left join merchant me on me.id = g.merchant_id
      left join shop sh on sh.id = g.shop_id
      left join admin_user u on u.id = g.active_by
      where ${and(named)}
    )
    select t.total, p.*
    from (select count(*) as total from n) t
    left join lateral (
      select n.*, to_char(n.period, ${format}) as period_text from n
      order by n.period desc, n.card_model_id, n.merchant_id nulls first, n.shop_id nulls first, n.is_donation, n.active_by nulls first
      limit ${limit} offset ${offset}
    ) p on true`.execute(db);
  const total = num(rows[0]?.total);
  const list = rows
    .filter((r) => r.card_model_id != null)
    .map((r) => ({
      cardModelId: Number(r.card_model_id),
      cardModelName: r.card_model_name!,
      businessId: r.business_id == null ? null : Number(r.business_id),
      businessName: r.business_name,
      isDonation: r.is_donation ? 1 : 0,
      activeById: r.active_by == null ? null : Number(r.active_by),
      activeByName: r.active_by_name,
      dateRange: r.period_text!,
      activeCount: num(r.active_count),
      noBindCount: num(r.no_bind_count),
      bindCount: num(r.bind_count),
      disableCount: num(r.disable_count),
      expireCount: num(r.expire_count),
      chipCount: num(r.chip_count),
      electronCount: num(r.electron_count),
    }));
  return { list, total };
}

interface ActiveRow {
  total: string;
  card_model_id: number | null;
  card_model_name: string | null;
  business_id: number | null;
  business_name: string | null;
  is_donation: boolean | null;
  active_by: number | null;
  active_by_name: string | null;
  period_text: string | null;
  active_count: string;
  no_bind_count: string;
  bind_count: string;
  disable_count: string;
  expire_count: string;
  chip_count: string;
  electron_count: string;
}

/**
 * statHomeCardCheckNum: entries (Σ consume_num of living checks) per card model in the range, exact
 * whatever the roll-up job has folded, in one statement (one snapshot): the range's whole UTC days
 * from stat_check_day (folded checks), the checks of those days beyond the mark from card_check's
 * primary key, and the partial days at the range's ends from the covering index
 * card_check_stat_time_idx (migration 0023).
 */
export async function checkNumByModel(db: Executor, scope: Scope, range: DateRange): Promise<HomeCheckNum[]> {
  const days = splitUtcDays(range);
  const scoped = scope.kind !== 'platform';
  const { rows } = await sql<{ id: number; name: string; n: string }>`
    with entries as (
      select d.card_model_id, d.sku_id, d.entries as n from stat_check_day d where ${days.whole('d.check_day')}
      union all
      select cc.card_model_id, cc.sku_id, cc.consume_num from card_check cc
      where not cc.is_deleted and ${days.partial('cc.check_time')}
      union all
      select cc.card_model_id, cc.sku_id, cc.consume_num from card_check cc
      where cc.id > ${foldMark} and not cc.is_deleted and ${days.inWhole('cc.check_time')}
    ),
    g as (select card_model_id, sku_id, sum(n) as n from entries group by card_model_id, sku_id)
    select cm.id, cm.name, sum(g.n) as n
    from g
    join card_model cm on cm.id = g.card_model_id
    ${scoped ? sql`join sku s on s.id = g.sku_id where ${checkVisible(scope)}` : sql``}
    group by cm.id, cm.name
    having sum(g.n) > 0
    order by cm.id`.execute(db);
  return rows.map((r) => ({ cardModelId: Number(r.id), cardModelName: r.name, checkNum: num(r.n) }));
}

/**
 * statHomeCardSalesAmount: cards activated in the range per card model, and what the sold ones (not
 * donated) brought in: the model's price in force at each card's activation (card_model_price_history;
 * a card activated before the first recorded price takes that first price; a model without history its
 * current price).
 */
export async function salesByModel(db: Executor, scope: Scope, range: DateRange): Promise<HomeSalesAmount[]> {
  const { rows } = await sql<{ id: number; name: string; n: string; donated: string; amount: string | null }>`
    with periods as (
      select h.card_model_id, h.price,
        case when row_number() over (partition by h.card_model_id order by h.valid_from, h.id) = 1 then '-infinity'::timestamptz else h.valid_from end as from_time,
        coalesce(h.valid_to, 'infinity'::timestamptz) as to_time
      from card_model_price_history h
    ),
    sold as (
      select c.card_model_id, c.is_donation, c.active_time
      from card c join card_model cm on cm.id = c.card_model_id
      where not c.is_deleted and c.active_time between ${range.start} and ${range.end} and ${cardVisible(scope)}
    ),
    g as (
      select s.card_model_id, count(*) as n, count(*) filter (where s.is_donation) as donated,
        sum(case when s.is_donation then 0 else coalesce(p.price, m.price) end) as amount
      from sold s
      join card_model m on m.id = s.card_model_id
      left join periods p on p.card_model_id = s.card_model_id and s.active_time >= p.from_time and s.active_time < p.to_time
      group by s.card_model_id
    )
    select cm.id, cm.name, g.n, g.donated, g.amount
    from g join card_model cm on cm.id = g.card_model_id
    order by cm.id`.execute(db);
  return rows.map((r) => ({
    cardModelId: Number(r.id),
    cardModelName: r.name,
    salesNum: num(r.n),
    donationNum: num(r.donated),
    salesAmount: num(r.amount),
  }));
}

/** Whether a shop exists and whose it is. */
export async function shopOwner(db: Executor, shopId: number): Promise<{ merchantId: number } | null> {
  const r = await db
    .selectFrom('shop')
    .select('merchant_id')
    .where('id', '=', shopId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r ? { merchantId: r.merchant_id } : null;
}

export async function merchantExists(db: Executor, merchantId: number): Promise<boolean> {
  const r = await db
    .selectFrom('merchant')
    .select('id')
    .where('id', '=', merchantId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return r !== undefined;
}
