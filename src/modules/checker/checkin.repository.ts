import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import { compiledOnce, preparedAs } from '../../platform/db/prepared.js';
import { OPERATE_LOG_COLUMNS, operateLogRow, type OperateLogEntry } from '../../platform/oplog/oplog.repository.js';
import type { CardCandidate, ScanPlace } from './checkin-rules.js';

/**
 * The reads and the write of a scan at the gate (DOMAIN.md §4). A scan is the busiest write of the
 * service, so each side is one statement: on this kind of machine every round trip to PostgreSQL
 * costs more than the work it carries.
 */

const MAX_CARDS_PER_PERSON = 20;

/** How the scan names its card: the card number, or the holder's ID document number (of a type). */
export type CardKey = { cardNumber: string } | { idNo: string; idType: number | null };

/** What an earlier send of the same scan got: its record, or its refusal. */
export type EarlierScan =
  | { kind: 'checked'; checkId: number; skuId: number; cardNumber: string; touristCardNo: string | null }
  | { kind: 'refused'; skuId: number | null; errcode: number; reason: string };

export interface ScanReading {
  earlier: EarlierScan | null;
  /** null when the SKU is unknown or deleted */
  place: ScanPlace | null;
  cards: CardCandidate[];
}

/** The record or refusal the verifier's earlier send with this nonce got (a check wins over a refusal). */
function earlierScanQuery(checkerId: number, nonce: string) {
  return sql`
    select 'checked' as kind, cc.id as check_id, cc.sku_id, c.card_number, cc.tourist_card_no, null::integer as errcode, null::text as reason
    from card_check cc join card c on c.id = cc.card_id
    where cc.checker_id = ${checkerId} and cc.nonce = ${nonce}
    union all
    select 'refused', null, f.sku_id, null, null, f.errcode, f.reason
    from card_check_fail f
    where f.checker_id = ${checkerId} and f.nonce = ${nonce}
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
  if (r.kind === 'checked') return { kind: 'checked', checkId: Number(r.check_id), skuId: Number(r.sku_id), cardNumber: r.card_number!, touristCardNo: r.tourist_card_no };
  if (r.kind === 'refused') return { kind: 'refused', skuId: r.sku_id === null ? null : Number(r.sku_id), errcode: r.errcode!, reason: r.reason! };
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
}

/** How the scan names its cards, which shapes the text of the read. */
type KeyShape = 'none' | 'card' | 'id' | 'id-and-type';
const READ_VALUES = ['checkerId', 'skuId', 'entranceId', 'cardNumber', 'idNo', 'idType', 'nonce'] as const;
type ReadValues = Record<(typeof READ_VALUES)[number], unknown>;

/**
 * Everything a scan is judged on, in one statement: the earlier send of its nonce (when it has one);
 * the SKU, its resource, the requested gate and whether a relation of the verifier covers them (a
 * relation without an entrance covers every gate of its SKU); and the cards the key names, with their
 * model, live binding and the model's rule for the SKU's resource (no cards without a key). One row
 * per card (one with nulls when there is none).
 */
function scanReadQuery(s: ReadValues, shape: KeyShape, withNonce: boolean) {
  const which = shape === 'none'
    ? sql`false`
    : shape === 'card'
    ? sql`c.card_number = ${s.cardNumber}`
    : shape === 'id'
      ? sql`b.id_no = ${s.idNo}`
      : sql`b.id_no = ${s.idNo} and b.id_type = ${s.idType}`;
  const earlier = withNonce ? earlierScanQuery(s.checkerId as number, s.nonce as string) : sql`select null::text as kind`;
  return sql<ReadingRow>`${preparedAs('checkin-read')}
    with place as (
      select s.id as p_sku_id, s.sku_name as p_sku_name, s.goods_id as p_resource_id, p.name as p_resource_name,
        s.merchant_id as p_merchant_id, s.shop_id as p_shop_id, e.id as p_entrance_id, e.entrance_name as p_entrance_name,
        exists (
          select 1 from checker_relation r
          where r.checker_id = ${s.checkerId} and r.sku_id = s.id
            and (${s.entranceId}::bigint is null or r.entrance_id is null or r.entrance_id = ${s.entranceId}::bigint)
        ) as p_allowed
      from sku s
      join spu p on p.id = s.goods_id
      left join sku_entrance e on e.id = ${s.entranceId}::bigint and e.sku_id = s.id and not e.is_deleted
      where s.id = ${s.skuId} and not s.is_deleted
    ),
    cards as (
      select c.id as c_id, c.card_number as c_card_number, c.card_model_id as c_model_id, m.name as c_model_name, c.status as c_status,
        c.active_time as c_active_time, c.expire_time as c_expire_time, b.id as c_binding_id, b.name as c_holder_name,
        b.phone as c_holder_phone, b.id_no as c_holder_id_no, b.face_photo as c_holder_face_photo, rr.daily_check_limit as c_daily_limit
      from card c
      join card_model m on m.id = c.card_model_id
      left join card_binding b on b.card_id = c.id and not b.is_deleted
      left join card_model_resource_rule rr
        on rr.card_model_id = c.card_model_id and not rr.is_deleted and rr.resource_id = (select goods_id from sku where id = ${s.skuId})
      where not c.is_deleted and ${which}
      order by c.id
      limit ${sql.lit(MAX_CARDS_PER_PERSON)}
    )
    select * from (${earlier}) n
    right join (select 1 as one) one on true
    left join place on true
    left join cards on true`;
}

// The read runs on every scan: each of its few shapes is built and compiled once.
const scanReads = new Map<string, ReturnType<typeof compiledOnce<(typeof READ_VALUES)[number], ReadingRow>>>();

export async function readScan(
  db: Executor,
  s: { checkerId: number; skuId: number; entranceId: number | null; key: CardKey | null; nonce: string | null },
): Promise<ScanReading> {
  const shape: KeyShape = s.key === null ? 'none' : 'cardNumber' in s.key ? 'card' : s.key.idType === null ? 'id' : 'id-and-type';
  const variant = `${shape}:${s.nonce !== null}`;
  let statement = scanReads.get(variant);
  if (!statement) {
    statement = compiledOnce(READ_VALUES, (p) => scanReadQuery(p, shape, s.nonce !== null));
    scanReads.set(variant, statement);
  }
  const key = s.key;
  const r = await statement(db, {
    checkerId: s.checkerId,
    skuId: s.skuId,
    entranceId: s.entranceId,
    cardNumber: key && 'cardNumber' in key ? key.cardNumber : null,
    idNo: key && 'idNo' in key ? key.idNo : null,
    idType: key && 'idNo' in key ? key.idType : null,
    nonce: s.nonce,
  });
  const rows = r.rows;
  const first = rows[0];
  const place: ScanPlace | null = first.p_sku_id === null
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
      };
  const cards = rows.filter((c) => c.c_id !== null).map((c): CardCandidate => ({
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
  }));
  return { earlier: toEarlier(first), place, cards };
}

export interface NewCheck {
  cardId: number;
  modelId: number;
  skuId: number;
  resourceId: number;
  entranceId: number | null;
  checkerId: number;
  touristName: string | null;
  touristMobile: string | null;
  touristCardNo: string | null;
  touristFacePhoto: string | null;
  consumeNum: number;
  checkType: number;
  checkTime: Date;
  /** YYYY-MM-DD of checkTime in the service time zone */
  checkDate: string;
  nonce: string | null;
  dailyLimit: number;
}

export interface WrittenCheck {
  id: number;
  checksLeft: number;
  createdAt: Date;
}

/** The operation-log row, its business id being the check the same statement inserts. */
function logOfCheck(log: Record<string, unknown> | null): RawBuilder<unknown> {
  if (!log) return sql``;
  const values = OPERATE_LOG_COLUMNS.map((column) => (column === 'biz_id' ? sql`ins.id::text` : sql`${log[`log_${column}`]}`));
  return sql`, logged as (
      insert into operate_log (${sql.join(OPERATE_LOG_COLUMNS.map((c) => sql.ref(c)))})
      select ${sql.join(values)} from ins
    )`;
}

const WRITE_VALUES = [
  'cardId', 'modelId', 'skuId', 'resourceId', 'entranceId', 'checkerId', 'touristName', 'touristMobile', 'touristCardNo',
  'touristFacePhoto', 'consumeNum', 'checkType', 'checkTime', 'checkDate', 'nonce', 'dailyLimit',
  ...OPERATE_LOG_COLUMNS.map((c) => `log_${c}` as const),
] as const;
type WriteValues = Record<(typeof WRITE_VALUES)[number], unknown>;

function checkWriteQuery(c: WriteValues, logged: boolean) {
  return sql<{ id: number; checks_left: number; created_at: Date }>`${preparedAs('checkin-write')}
    with counted as (
      insert into card_check_day_count as d (card_id, resource_id, check_date, used)
      select ${c.cardId}, ${c.resourceId}, ${c.checkDate}::date, s.used + ${c.consumeNum}
      from (
        select coalesce(sum(consume_num), 0)::integer as used from card_check
        where card_id = ${c.cardId} and resource_id = ${c.resourceId} and check_date = ${c.checkDate}::date and not is_deleted
      ) s
      where s.used + ${c.consumeNum} <= ${c.dailyLimit}
      on conflict (card_id, resource_id, check_date)
        do update set used = d.used + ${c.consumeNum}, updated_at = now()
        where d.used + ${c.consumeNum} <= ${c.dailyLimit}
      returning used
    ),
    ins as (
      insert into card_check (
        card_id, card_model_id, sku_id, resource_id, entrance_id, checker_id, tourist_name, tourist_mobile, tourist_card_no,
        tourist_face_photo, consume_num, check_type, status, check_time, check_date, nonce, checks_left, created_by, updated_by
      )
      select ${c.cardId}, ${c.modelId}, ${c.skuId}, ${c.resourceId}, ${c.entranceId}, ${c.checkerId}, ${c.touristName}, ${c.touristMobile},
        ${c.touristCardNo}, ${c.touristFacePhoto}, ${c.consumeNum}, ${c.checkType}, 1, ${c.checkTime}, ${c.checkDate}::date, ${c.nonce},
        ${c.dailyLimit} - counted.used, ${c.checkerId}, ${c.checkerId}
      from counted
      returning id, checks_left, created_at
    )${logOfCheck(logged ? c : null)}
    select id, checks_left, created_at from ins`;
}

// The write of every passing scan, with and without its operation-log row, built and compiled once.
const checkWrites = { logged: compiledOnce(WRITE_VALUES, (p) => checkWriteQuery(p, true)), bare: compiledOnce(WRITE_VALUES, (p) => checkWriteQuery(p, false)) };

/**
 * Takes the entries from the card's day counter, writes the check and its operation-log row, in one
 * statement (atomic without a transaction round trip); null when the day's limit would be exceeded,
 * and then nothing is written.
 *
 * The counter row is upserted with a condition: a new row starts from the entries that check records
 * of that day already hold (records written before the counter existed: the demo set, imports) and is
 * only inserted within the limit; an existing row is raised only while it stays within the limit.
 * ON CONFLICT … DO UPDATE locks the row and re-reads it after a concurrent writer commits, so
 * concurrent scans of one card queue there and at most `limit` entries pass, on any number of
 * instances. The check row is inserted from the counter's answer, so no answer means no record.
 */
export async function insertCheckWithinLimit(db: Executor, c: NewCheck, log: OperateLogEntry | null): Promise<WrittenCheck | null> {
  const values = { ...c } as Partial<WriteValues>;
  const row = log ? operateLogRow(log) : null;
  for (const column of OPERATE_LOG_COLUMNS) values[`log_${column}`] = row ? row[column] : null;
  const r = await (log ? checkWrites.logged : checkWrites.bare)(db, values as WriteValues);
  const written = r.rows[0];
  return written ? { id: Number(written.id), checksLeft: written.checks_left, createdAt: written.created_at } : null;
}

export const NONCE_INDEX = 'card_check_checker_nonce_uq';
