import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import { compiledOnce, preparedAs } from '../../platform/db/prepared.js';
import {
  OPERATE_LOG_COLUMNS,
  operateLogInsertCte,
  operateLogRow,
  type OperateLogEntry,
} from '../../platform/oplog/oplog.repository.js';
import { ConflictKind, type CheckConflict } from './check-conflict.js';
import { CardStanding, type CardCandidate, type ScanPlace } from './checkin-rules.js';

/**
 * The reads and the write of a scan at the gate (docs/domain.md §4). A scan is the busiest write of the
 * service, so a scan by card number or ID document is one statement that reads what the scan is
 * judged on and writes the check when it passes: on this kind of machine every round trip to
 * PostgreSQL (a wake-up of another process on a shared CPU) costs more than the work it carries.
 */

const MAX_CARDS_PER_PERSON = 20;

/** How the scan names its card: the card number, or the holder's ID document number (of a type). */
export type CardKey = { cardNumber: string } | { idNo: string; idType: number | null };

/**
 * What an earlier send of the same scan got: its record, or its refusal; with the card number and ID
 * number it was about (a refusal's as its log row keeps them: as sent, else the card's), so a re-sent
 * scan can be told from another scan under the same nonce.
 */
export type EarlierScan =
  | { kind: 'checked'; checkId: number; skuId: number; cardNumber: string; idNo: string | null }
  | {
      kind: 'refused';
      skuId: number | null;
      cardNumber: string | null;
      idNo: string | null;
      errcode: number;
      reason: string;
    };

export interface ScanReading {
  earlier: EarlierScan | null;
  /** null when the SKU is unknown or deleted */
  place: ScanPlace | null;
  cards: CardCandidate[];
}

/** When and how a scan is judged: the cards' standing is taken at `at` (docs/domain.md §4 steps 2–3). */
export interface ScanJudgement {
  checkerId: number;
  skuId: number;
  entranceId: number | null;
  key: CardKey | null;
  /** the earlier send of this nonce is looked up; null: not looked up */
  nonce: string | null;
  at: Date;
  offline: boolean;
  /**
   * Record mode: an offline gate already admitted the visitor, so the card's daily limit and the
   * spot's capacities do not refuse; the check is written, the counters raised anyway and a
   * card_check_conflict row kept per bound broken (docs/domain.md §4.1). Every other refusal stands.
   */
  recordOverBounds: boolean;
}

/**
 * The record or refusal the verifier's earlier send with this nonce got (a check wins over a refusal).
 * The nonce tables hold each nonce once and point at its row by id and partition column, so the
 * look-up reads one partition of each log (docs/adr/0100-history-tables-partitioned-by-month.md).
 */
function earlierScanQuery(checkerId: number, nonce: string) {
  return sql`
    select 'checked' as kind, cc.id as check_id, cc.sku_id, c.card_number, cc.tourist_card_no, null::integer as errcode, null::text as reason
    from card_check_nonce n
    join card_check cc on cc.id = n.check_id and cc.check_time = n.check_time
    join card c on c.id = cc.card_id
    where n.checker_id = ${checkerId} and n.nonce = ${nonce}
    union all
    select 'refused', null, f.sku_id, f.card_number, f.id_no, f.errcode, f.reason
    from card_check_fail_nonce n
    join card_check_fail f on f.id = n.fail_id and f.created_at = n.created_at
    where n.checker_id = ${checkerId} and n.nonce = ${nonce}
    order by kind
    limit 1`;
}

interface EarlierRow {
  kind: 'checked' | 'refused' | null;
  check_id: number | null;
  sku_id: number | null;
  card_number: string | null;
  tourist_card_no: string | null;
  errcode: number | null;
  reason: string | null;
}

function toEarlier(r: EarlierRow): EarlierScan | null {
  if (r.kind === 'checked')
    return {
      kind: 'checked',
      checkId: Number(r.check_id),
      skuId: Number(r.sku_id),
      cardNumber: r.card_number!,
      idNo: r.tourist_card_no,
    };
  if (r.kind === 'refused') {
    return {
      kind: 'refused',
      skuId: r.sku_id === null ? null : Number(r.sku_id),
      cardNumber: r.card_number,
      idNo: r.tourist_card_no,
      errcode: r.errcode!,
      reason: r.reason!,
    };
  }
  return null;
}

export async function findEarlierScan(db: Executor, checkerId: number, nonce: string): Promise<EarlierScan | null> {
  const r = await sql`${preparedAs('checkin-earlier')} ${earlierScanQuery(checkerId, nonce)}`.execute(db);
  return r.rows[0] ? toEarlier(r.rows[0] as EarlierRow) : null;
}

interface ReadingRow extends EarlierRow {
  p_sku_id: number | null;
  p_sku_name: string | null;
  p_resource_id: number | null;
  p_resource_name: string | null;
  p_merchant_id: number | null;
  p_shop_id: number | null;
  p_entrance_id: number | null;
  p_entrance_name: string | null;
  p_allowed: boolean | null;
  p_posted: boolean | null;
  c_id: number | null;
  c_card_number: string | null;
  c_model_id: number | null;
  c_model_name: string | null;
  c_status: number | null;
  c_active_time: Date | null;
  c_expire_time: Date | null;
  c_binding_id: number | null;
  c_holder_name: string | null;
  c_holder_phone: string | null;
  c_holder_id_no: string | null;
  c_holder_face_photo: string | null;
  c_daily_limit: number | null;
  c_standing: number | null;
  c_use_rank: number | null;
  /** the card the write takes (or would have taken, within the limit); only a scan's write answers it */
  c_chosen?: boolean | null;
}

/** How the scan names its cards, which shapes the text of its statement. */
type KeyShape = 'none' | 'card' | 'id' | 'id-and-type';
const shapeOf = (key: CardKey | null): KeyShape =>
  key === null ? 'none' : 'cardNumber' in key ? 'card' : key.idType === null ? 'id' : 'id-and-type';

const READ_VALUES = [
  'checkerId',
  'skuId',
  'entranceId',
  'cardNumber',
  'idNo',
  'idType',
  'nonce',
  'at',
  'offline',
] as const;
type ReadValues = Record<(typeof READ_VALUES)[number], unknown>;

function readValues(s: ScanJudgement): ReadValues {
  const key = s.key;
  return {
    checkerId: s.checkerId,
    skuId: s.skuId,
    entranceId: s.entranceId,
    cardNumber: key && 'cardNumber' in key ? key.cardNumber : null,
    idNo: key && 'idNo' in key ? key.idNo : null,
    idType: key && 'idNo' in key ? key.idType : null,
    nonce: s.nonce,
    at: s.at,
    offline: s.offline,
  };
}

// Card times are compared at the millisecond, as the scan's time is given.
const ms = (column: string) => sql.raw(`date_trunc('milliseconds', ${column})`);

/**
 * The CTEs of everything a scan is judged on: `earlier`, the earlier send of its nonce (no row
 * without one); `place`, the SKU, its resource, the requested gate and whether a relation of the
 * verifier covers them (a relation without an entrance covers every gate of its SKU); `cards`, the
 * cards the key names, with their model, live binding, the model's rule for the SKU's resource and
 * their standing at the scan's time (no cards without a key).
 *
 * The standing is where the card rules live (docs/domain.md §4 steps 2–3, in this order): not bound,
 * disabled, not active yet at the scan's time, expired by then (an offline scan made before the card
 * expired still counts, even if the card has been marked expired since; online, a card marked expired
 * is expired), no rule for the resource, usable (CardStanding). A person's cards are used in one
 * order, given here as each card's `c_use_rank` (expiring soonest first, so the older card is used up
 * first; then the oldest): the write takes the first usable one, and the service names a refusal by it.
 */
function judgedOn(s: ReadValues, shape: KeyShape, withNonce: boolean) {
  const which =
    shape === 'none'
      ? sql`false`
      : shape === 'card'
        ? sql`c.card_number = ${s.cardNumber}`
        : shape === 'id'
          ? sql`b.id_no = ${s.idNo}`
          : sql`b.id_no = ${s.idNo} and b.id_type = ${s.idType}`;
  const earlier = withNonce
    ? earlierScanQuery(s.checkerId as number, s.nonce as string)
    : sql`select null::text as kind where false`;
  const at = sql`${s.at}::timestamptz`;
  return sql`
    earlier as (${earlier}),
    place as (
      select s.id as p_sku_id, s.sku_name as p_sku_name, s.goods_id as p_resource_id, p.name as p_resource_name,
        s.merchant_id as p_merchant_id, s.shop_id as p_shop_id, e.id as p_entrance_id, e.entrance_name as p_entrance_name,
        exists (
          select 1 from checker_relation r
          where r.checker_id = ${s.checkerId} and r.sku_id = s.id
            and (r.entrance_id is null or r.entrance_id = ${s.entranceId}::bigint)
        ) as p_allowed,
        exists (select 1 from checker_relation r where r.checker_id = ${s.checkerId} and r.sku_id = s.id) as p_posted
      from sku s
      join spu p on p.id = s.goods_id
      left join sku_entrance e on e.id = ${s.entranceId}::bigint and e.sku_id = s.id and not e.is_deleted
      where s.id = ${s.skuId} and not s.is_deleted
    ),
    cards as (
      select c.id as c_id, c.card_number as c_card_number, c.card_model_id as c_model_id, m.name as c_model_name, c.status as c_status,
        c.active_time as c_active_time, c.expire_time as c_expire_time, b.id as c_binding_id, b.name as c_holder_name,
        b.phone as c_holder_phone, b.id_no as c_holder_id_no, b.face_photo as c_holder_face_photo, rr.daily_check_limit as c_daily_limit,
        case
          when b.id is null or c.status = ${sql.lit(1)} then ${sql.lit(CardStanding.NOT_BOUND)}
          when c.status = ${sql.lit(3)} then ${sql.lit(CardStanding.DISABLED)}
          when c.active_time is null or ${ms('c.active_time')} > ${at} then ${sql.lit(CardStanding.NOT_ACTIVE_YET)}
          when (c.expire_time is not null and ${ms('c.expire_time')} < ${at})
            or (c.status = ${sql.lit(4)} and (not ${s.offline}::boolean or c.expire_time is null)) then ${sql.lit(CardStanding.EXPIRED)}
          when rr.daily_check_limit is null then ${sql.lit(CardStanding.NOT_VALID_HERE)}
          else ${sql.lit(CardStanding.USABLE)}
        end as c_standing,
        row_number() over (order by ${ms('c.expire_time')} nulls last, c.id) as c_use_rank
      from card c
      join card_model m on m.id = c.card_model_id
      left join card_binding b on b.card_id = c.id and not b.is_deleted
      left join card_model_resource_rule rr
        on rr.card_model_id = c.card_model_id and not rr.is_deleted and rr.resource_id = (select goods_id from sku where id = ${s.skuId})
      where not c.is_deleted and ${which}
      order by c.id
      limit ${sql.lit(MAX_CARDS_PER_PERSON)}
    )`;
}

/** One row per card (one with nulls when there is none), with the earlier send and the place on each. */
const judgedRows = sql`select * from earlier n
    right join (select 1 as one) one on true
    left join place on true
    left join cards on true`;

function toReading(rows: ReadingRow[]): ScanReading {
  const first = rows[0];
  const place: ScanPlace | null =
    first.p_sku_id === null
      ? null
      : {
          skuId: first.p_sku_id,
          skuName: first.p_sku_name!,
          resourceId: first.p_resource_id!,
          resourceName: first.p_resource_name!,
          merchantId: first.p_merchant_id!,
          shopId: first.p_shop_id,
          entranceName: first.p_entrance_name,
          entranceFound: first.p_entrance_id !== null,
          allowed: Boolean(first.p_allowed),
          posted: Boolean(first.p_posted),
        };
  const cards = rows
    .filter((c) => c.c_id !== null)
    .map((c): CardCandidate => ({
      id: c.c_id!,
      cardNumber: c.c_card_number!,
      modelId: c.c_model_id!,
      modelName: c.c_model_name!,
      status: c.c_status!,
      activeTime: c.c_active_time,
      expireTime: c.c_expire_time,
      bound: c.c_binding_id !== null,
      holderName: c.c_holder_name,
      holderPhone: c.c_holder_phone,
      holderIdNo: c.c_holder_id_no,
      holderFacePhoto: c.c_holder_face_photo,
      dailyLimit: c.c_daily_limit,
      standing: c.c_standing!,
      useRank: Number(c.c_use_rank),
      chosen: Boolean(c.c_chosen),
    }));
  return { earlier: toEarlier(first), place, cards };
}

/** A statement per shape, built and compiled once: the scan statements run on every check-in. */
function perShape<K extends string, R>(
  keys: readonly K[],
  build: (p: Record<K, unknown>, variant: string) => RawBuilder<R>,
) {
  const statements = new Map<string, ReturnType<typeof compiledOnce<K, R>>>();
  return (variant: string) => {
    let statement = statements.get(variant);
    if (!statement) {
      statement = compiledOnce(keys, (p) => build(p, variant));
      statements.set(variant, statement);
    }
    return statement;
  };
}

const reads = perShape(READ_VALUES, (p, variant) => {
  const [shape, nonce] = variant.split(':');
  return sql<ReadingRow>`${preparedAs('checkin-read')} with ${judgedOn(p as ReadValues, shape as KeyShape, nonce === 'nonce')} ${judgedRows}`;
});

/** Everything a scan is judged on, in one statement, without writing anything (the post check of a face scan). */
export async function readScan(db: Executor, s: ScanJudgement): Promise<ScanReading> {
  const r = await reads(`${shapeOf(s.key)}:${s.nonce === null ? '' : 'nonce'}`)(db, readValues(s));
  return toReading(r.rows);
}

/** What a passing scan writes besides what it was judged on. */
export interface CheckDetails {
  consumeNum: number;
  checkType: number;
  /** YYYY-MM-DD of the scan's time in the service time zone */
  checkDate: string;
  /** the nonce stored on the check (also when its earlier send was not looked up) */
  nonce: string | null;
  /** a face photo URL to keep on the record instead of the holder's */
  photo: string | null;
  /** false when the scan is refused before its card is looked at (its time): nothing is written */
  timeAllowed: boolean;
}

export interface WrittenCheck {
  id: number;
  cardId: number;
  checksLeft: number;
  createdAt: Date;
  /** the bounds the check broke (record mode only; empty otherwise) */
  conflicts: CheckConflict[];
}

/**
 * The bound that refused a scan whose card was usable (ConflictKind): the card's daily limit, the
 * spot's day capacity, its slot's capacity (minutes of the day [start, end)).
 */
export type RefusedBound =
  { kind: 1 } | { kind: 2; capacity: number } | { kind: 3; capacity: number; startMinute: number; endMinute: number };

const WRITE_VALUES = [
  ...READ_VALUES,
  'consumeNum',
  'checkType',
  'checkDate',
  'storedNonce',
  'photo',
  'timeAllowed',
  'minute',
  'record',
  ...OPERATE_LOG_COLUMNS.map((c) => `log_${c}` as const),
] as const;
type WriteValues = Record<(typeof WRITE_VALUES)[number], unknown>;

/**
 * The check times a day's checks can have (its date in the service's zone, a day either side covers
 * any zone): card_check is partitioned by check time, so this reads that month's partition alone
 * instead of probing every month's index (docs/adr/0100-history-tables-partitioned-by-month.md).
 */
const aroundDay = (day: unknown) =>
  sql`k.check_time >= (${day}::date - 1)::timestamptz and k.check_time < (${day}::date + 2)::timestamptz`;

/** The operation-log row, its business id being the check the same statement inserts. */
function logOfCheck(log: WriteValues | null): RawBuilder<unknown> {
  if (!log) return sql``;
  return operateLogInsertCte('logged', 'ins', sql`ins.id::text`, (column) => sql`${log[`log_${column}`]}`);
}

/**
 * The order the write tries a person's usable cards in: those with room left for this scan's entries
 * on its day first (the counter row, or before it exists the day's records it would be seeded from),
 * then the order of use. A card number names one card, so its statement reads no counter here.
 */
function byRoomThenUse(c: WriteValues, shape: KeyShape) {
  if (shape === 'card') return sql`c_use_rank`;
  const used = sql`coalesce(
      (select d.used from card_check_day_count d
        where d.card_id = cards.c_id and d.resource_id = pl.p_resource_id and d.check_date = ${c.checkDate}::date),
      (select sum(k.consume_num)::integer from card_check k
        where k.card_id = cards.c_id and k.resource_id = pl.p_resource_id and k.check_date = ${c.checkDate}::date and not k.is_deleted
          and ${aroundDay(c.checkDate)}),
      0)`;
  return sql`(${used} + ${c.consumeNum} <= c_daily_limit) desc, c_use_rank`;
}

/** The scan may take entries: not a re-send, its time allowed, the verifier posted at the place and gate. */
const passes = (c: WriteValues) => sql`${c.timeAllowed}::boolean
        and not exists (select 1 from earlier)
        and pl.p_allowed and (${c.entranceId}::bigint is null or pl.p_entrance_id is not null)`;

const checkIns = perShape(WRITE_VALUES, (p, variant) => {
  const [shape, nonce, logged] = variant.split(':');
  const c = p as WriteValues;
  return sql<
    ReadingRow & {
      w_id: number | null;
      w_card_id: number | null;
      w_checks_left: number | null;
      w_created_at: Date | null;
      w_refused: number | null;
      w_conflicts: CheckConflict[] | string | null;
      k_daily: number | null;
      k_slot_start: number | null;
      k_slot_end: number | null;
      k_slot_capacity: number | null;
    }
  >`${preparedAs('checkin-scan')}
    with ${judgedOn(c, shape as KeyShape, nonce === 'nonce')},
    cap as (
      select sc.daily_capacity, sl.start_minute as slot_start, sl.end_minute as slot_end, sl.capacity as slot_capacity
      from spot_capacity sc
      left join spot_capacity_slot sl
        on sl.sku_id = sc.sku_id and sl.start_minute <= ${c.minute}::integer and sl.end_minute > ${c.minute}::integer
      where sc.sku_id = ${c.skuId}
    ),
    chosen as (
      select cards.* from cards cross join place pl
      where c_standing = ${sql.lit(CardStanding.USABLE)}
      order by ${byRoomThenUse(c, shape as KeyShape)}
      limit 1
    ),
    counted as (
      insert into card_check_day_count as d (card_id, resource_id, check_date, used)
      select ch.c_id, pl.p_resource_id, ${c.checkDate}::date, s.used + ${c.consumeNum}
      from chosen ch
      cross join place pl
      cross join lateral (
        select coalesce(sum(k.consume_num), 0)::integer as used from card_check k
        where k.card_id = ch.c_id and k.resource_id = pl.p_resource_id and k.check_date = ${c.checkDate}::date and not k.is_deleted
          and ${aroundDay(c.checkDate)}
      ) s
      where ${passes(c)}
        and not exists (select 1 from cap)
        and (${c.record}::boolean or s.used + ${c.consumeNum} <= ch.c_daily_limit)
      on conflict (card_id, resource_id, check_date)
        do update set used = d.used + ${c.consumeNum}, updated_at = now()
        where ${c.record}::boolean or d.used + ${c.consumeNum} <= (select c_daily_limit from chosen)
      returning used
    ),
    admitted as (
      select t.* from chosen ch cross join place pl cross join cap,
        lateral checkin_take_entries(ch.c_id, pl.p_resource_id, ch.c_daily_limit, pl.p_sku_id, ${c.checkDate}::date,
          ${c.consumeNum}::integer, ${c.record}::boolean, cap.daily_capacity, cap.slot_start, cap.slot_end, cap.slot_capacity) t
      where ${passes(c)}
    ),
    taken as (
      select used as card_used, null::integer as day_admitted, null::integer as slot_admitted from counted
      union all
      select card_used, day_admitted, slot_admitted from admitted where refused = 0
    ),
    ins as (
      insert into card_check (
        card_id, card_model_id, sku_id, resource_id, entrance_id, checker_id, tourist_name, tourist_mobile, tourist_card_no,
        tourist_face_photo, consume_num, check_type, status, check_time, check_date, nonce, checks_left, created_by, updated_by
      )
      select ch.c_id, ch.c_model_id, pl.p_sku_id, pl.p_resource_id, pl.p_entrance_id, ${c.checkerId}, ch.c_holder_name, ch.c_holder_phone,
        ch.c_holder_id_no, coalesce(${c.photo}::text, ch.c_holder_face_photo), ${c.consumeNum}, ${c.checkType}, 1, ${c.at}::timestamptz,
        ${c.checkDate}::date, ${c.storedNonce}, greatest(ch.c_daily_limit - taken.card_used, 0), ${c.checkerId}, ${c.checkerId}
      from taken cross join chosen ch cross join place pl
      returning id, card_id, checks_left, created_at, check_time
    ),
    conflicted as (
      insert into card_check_conflict (
        check_id, check_time, card_id, sku_id, resource_id, merchant_id, shop_id, checker_id, kind, limit_value, count_value
      )
      select ins.id, ins.check_time, ins.card_id, pl.p_sku_id, pl.p_resource_id, pl.p_merchant_id, pl.p_shop_id, ${c.checkerId},
        b.kind, b.bound, b.count
      from ins cross join taken cross join chosen ch cross join place pl left join cap on true
      cross join lateral (values
        (${sql.lit(ConflictKind.DAILY_LIMIT)}, ch.c_daily_limit, taken.card_used),
        (${sql.lit(ConflictKind.SPOT_CAPACITY)}, cap.daily_capacity, taken.day_admitted),
        (${sql.lit(ConflictKind.SLOT_CAPACITY)}, cap.slot_capacity, taken.slot_admitted)
      ) b (kind, bound, count)
      where ${c.record}::boolean and b.count > b.bound
      returning kind, limit_value, count_value
    ),
    nonced as (
      insert into card_check_nonce (checker_id, nonce, check_id, check_time)
      select ${c.checkerId}, ${c.storedNonce}, ins.id, ins.check_time from ins where ${c.storedNonce}::text is not null
    )${logOfCheck(logged === 'logged' ? c : null)}
    select j.*, ch.c_id is not null as c_chosen, w.id as w_id, w.card_id as w_card_id, w.checks_left as w_checks_left, w.created_at as w_created_at,
      (select refused from admitted) as w_refused,
      (select json_agg(json_build_object('kind', kind, 'limit', limit_value, 'count', count_value) order by kind) from conflicted) as w_conflicts,
      k.daily_capacity as k_daily, k.slot_start as k_slot_start, k.slot_end as k_slot_end, k.slot_capacity as k_slot_capacity
    from (${judgedRows}) j
    left join cap k on true
    left join chosen ch on ch.c_id = j.c_id
    left join ins w on w.card_id = j.c_id`;
});

/**
 * A scan by card number or ID document in one statement: reads everything it is judged on and, when
 * it passes, takes the entries from the card's day counter and writes the check and its
 * operation-log row (atomic without a transaction round trip). Nothing is written when an earlier
 * send of the nonce exists, the time is refused, the verifier is not posted at the place, no card is
 * usable (the first usable one in the order the person's cards are used: expiring soonest, then the
 * oldest), or the day's limit would be exceeded; the caller tells which from the reading.
 *
 * The counter row is upserted with a condition: a new row starts from the entries that check records
 * of that day already hold (records written before the counter existed: the demo set, imports) and is
 * only inserted within the limit; an existing row is raised only while it stays within the limit.
 * ON CONFLICT … DO UPDATE locks the row and re-reads it after a concurrent writer commits, so
 * concurrent scans of one card queue there and at most `limit` entries pass, on any number of
 * instances. The check row is inserted from the counter's answer, so no answer means no record; its
 * nonce, when it has one, is claimed in card_check_nonce by the same statement, so a concurrent send
 * of the same scan fails on NONCE_INDEX and writes nothing.
 */
export async function checkInScan(
  db: Executor,
  s: ScanJudgement,
  d: CheckDetails,
  log: OperateLogEntry | null,
): Promise<ScanReading & { written: WrittenCheck | null; refusedBy: RefusedBound | null }> {
  const values = {
    ...readValues(s),
    consumeNum: d.consumeNum,
    checkType: d.checkType,
    checkDate: d.checkDate,
    storedNonce: d.nonce,
    photo: d.photo,
    timeAllowed: d.timeAllowed,
    // the scan's minute of the day in the service zone (process.env.TZ, src/platform/time.ts), for its slot
    minute: s.at.getHours() * 60 + s.at.getMinutes(),
    record: s.recordOverBounds,
  } as Partial<WriteValues>;
  const row = log ? operateLogRow(log) : null;
  for (const column of OPERATE_LOG_COLUMNS) values[`log_${column}`] = row ? row[column] : null;
  const variant = `${shapeOf(s.key)}:${s.nonce === null ? '' : 'nonce'}:${log ? 'logged' : ''}`;
  const r = await checkIns(variant)(db, values as WriteValues);
  const w = r.rows.find((x) => x.w_id !== null);
  const first = r.rows[0];
  const conflicts = w?.w_conflicts ?? null;
  return Object.assign(toReading(r.rows), {
    written: w
      ? {
          id: Number(w.w_id),
          cardId: Number(w.w_card_id),
          checksLeft: w.w_checks_left!,
          createdAt: w.w_created_at!,
          conflicts: conflicts === null ? [] : typeof conflicts === 'string' ? JSON.parse(conflicts) : conflicts,
        }
      : null,
    refusedBy: w ? null : refusedBound(first),
  });
}

/** Which bound refused a usable card, as the statement's counters answered (null: none was tried). */
function refusedBound(r: {
  w_refused: number | null;
  k_daily: number | null;
  k_slot_start: number | null;
  k_slot_end: number | null;
  k_slot_capacity: number | null;
}): RefusedBound | null {
  if (r.w_refused === ConflictKind.SPOT_CAPACITY) return { kind: ConflictKind.SPOT_CAPACITY, capacity: r.k_daily! };
  if (r.w_refused === ConflictKind.SLOT_CAPACITY)
    return {
      kind: ConflictKind.SLOT_CAPACITY,
      capacity: r.k_slot_capacity!,
      startMinute: r.k_slot_start!,
      endMinute: r.k_slot_end!,
    };
  return r.w_refused === ConflictKind.DAILY_LIMIT ? { kind: ConflictKind.DAILY_LIMIT } : null;
}

/** The key a second check with the same verifier and nonce violates (the statement then writes nothing). */
export const NONCE_INDEX = 'card_check_nonce_pkey';
