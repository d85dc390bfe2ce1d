import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import { formatDateTime } from '../../platform/time.js';
import type { CheckerConsumeRecord } from './checkin.schemas.js';

/** Check records as the verifier's app reads them (CheckerConsumeRecordResponse, spec B 2.2). */

export interface OwnedRecord extends CheckerConsumeRecord {
  skuId: number;
  checkDate: string;
  checksLeft: number | null;
}

function records(db: Executor) {
  return db
    .selectFrom('card_check as cc')
    .innerJoin('card as c', 'c.id', 'cc.card_id')
    .innerJoin('card_model as m', 'm.id', 'cc.card_model_id')
    .innerJoin('sku as s', 's.id', 'cc.sku_id')
    .innerJoin('spu as p', 'p.id', 'cc.resource_id')
    .leftJoin('sku_entrance as e', 'e.id', 'cc.entrance_id')
    .leftJoin('checker as k', 'k.id', 'cc.checker_id')
    .select([
      'cc.id',
      'c.card_number',
      'm.name as card_name',
      'cc.sku_id',
      's.sku_name',
      'cc.resource_id',
      'p.name as resource_name',
      'e.entrance_name',
      'cc.consume_num',
      'cc.checker_id',
      'k.name as checker_name',
      'cc.tourist_name',
      'cc.tourist_mobile',
      'cc.tourist_card_no',
      'cc.tourist_face_photo',
      'cc.status',
      'cc.is_deleted',
      'cc.check_time',
      'cc.check_date',
      'cc.created_by',
      'cc.created_at',
      'cc.updated_by',
      'cc.updated_at',
      'cc.check_type',
      'cc.checks_left',
    ]);
}

type RecordRow = Awaited<ReturnType<ReturnType<typeof records>['execute']>>[number];

function toRecord(r: RecordRow): OwnedRecord {
  return {
    id: r.id,
    cardNum: r.card_number,
    cardName: r.card_name,
    mcId: String(r.sku_id),
    mcName: r.sku_name,
    cmId: String(r.resource_id),
    cmName: r.resource_name,
    entranceName: r.entrance_name,
    consumeNum: r.consume_num,
    checkerId: r.checker_id,
    checkerName: r.checker_name,
    touristName: r.tourist_name,
    touristMobile: r.tourist_mobile,
    touristCardNo: r.tourist_card_no,
    touristFacePhoto: r.tourist_face_photo,
    status: r.status,
    isDeleted: r.is_deleted,
    checkTime: formatDateTime(r.check_time),
    createdBy: r.created_by,
    createdTime: formatDateTime(r.created_at),
    updatedBy: r.updated_by,
    updatedTime: formatDateTime(r.updated_at),
    checkType: r.check_type,
    skuId: r.sku_id,
    checkDate: r.check_date,
    checksLeft: r.checks_left,
  };
}

export const toWire = ({ skuId: _s, checkDate: _d, checksLeft: _c, ...record }: OwnedRecord): CheckerConsumeRecord =>
  record;

/** A check record, revoked ones included (isDeleted tells). */
export async function findRecord(db: Executor, id: number): Promise<OwnedRecord | null> {
  const r = await records(db).where('cc.id', '=', id).executeTakeFirst();
  return r ? toRecord(r) : null;
}

export async function isRelatedToSku(db: Executor, checkerId: number, skuId: number): Promise<boolean> {
  const r = await db
    .selectFrom('checker_relation')
    .select('id')
    .where('checker_id', '=', checkerId)
    .where('sku_id', '=', skuId)
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

export interface RevokedCheck {
  id: number;
  cardId: number;
  cardModelId: number;
  resourceId: number;
  checkDate: string;
  consumeNum: number;
  skuId: number;
  checkTime: Date;
}

/**
 * Marks the verifier's own check of `day` revoked; null when it is not (or no longer) one, so two
 * concurrent revocations give the entries back once.
 */
export async function revokeCheck(
  trx: Executor,
  id: number,
  checkerId: number,
  day: string,
): Promise<RevokedCheck | null> {
  const r = await trx
    .updateTable('card_check')
    .set({ is_deleted: true, updated_by: checkerId, updated_at: new Date() })
    .where('id', '=', id)
    .where('checker_id', '=', checkerId)
    .where('check_date', '=', day)
    // The day's check times (± a day for any zone): only that month's partition is read
    // (docs/adr/0100-history-tables-partitioned-by-month.md).
    .where(sql<boolean>`check_time >= (${day}::date - 1)::timestamptz and check_time < (${day}::date + 2)::timestamptz`)
    .where('is_deleted', '=', false)
    .returning(['id', 'card_id', 'card_model_id', 'resource_id', 'check_date', 'consume_num', 'sku_id', 'check_time'])
    .executeTakeFirst();
  return r
    ? {
        id: r.id,
        cardId: r.card_id,
        cardModelId: r.card_model_id,
        resourceId: r.resource_id,
        checkDate: r.check_date,
        consumeNum: r.consume_num,
        skuId: r.sku_id,
        checkTime: new Date(r.check_time),
      }
    : null;
}

/** Gives a revoked check's entries back to its card's day. */
export async function releaseEntries(trx: Executor, c: RevokedCheck): Promise<void> {
  await trx
    .updateTable('card_check_day_count')
    .set((eb) => ({ used: sql<number>`greatest(${eb.ref('used')} - ${c.consumeNum}, 0)`, updated_at: new Date() }))
    .where('card_id', '=', c.cardId)
    .where('resource_id', '=', c.resourceId)
    .where('check_date', '=', c.checkDate)
    .execute();
}

export interface SpotDayStat {
  allowed: boolean;
  persons: number;
  checks: number;
  mine: number;
}

/**
 * The living checks of one day at a SKU, counted in the database: distinct cards, records, and the
 * verifier's records; with whether the verifier is related to the SKU. One statement on the
 * (sku_id, check_time) index.
 */
export async function spotDayStat(
  db: Executor,
  checkerId: number,
  skuId: number,
  day: { start: Date; end: Date },
): Promise<SpotDayStat> {
  const r = await sql<{ allowed: boolean; persons: number | string; checks: number | string; mine: number | string }>`
    select
      exists (select 1 from checker_relation where checker_id = ${checkerId} and sku_id = ${skuId}) as allowed,
      count(distinct card_id) as persons,
      count(*) as checks,
      count(*) filter (where checker_id = ${checkerId}) as mine
    from card_check
    where sku_id = ${skuId} and check_time >= ${day.start} and check_time < ${day.end} and not is_deleted`.execute(db);
  const row = r.rows[0];
  return {
    allowed: Boolean(row.allowed),
    persons: Number(row.persons),
    checks: Number(row.checks),
    mine: Number(row.mine),
  };
}
