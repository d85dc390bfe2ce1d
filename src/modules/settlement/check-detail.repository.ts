import { sql, type Selectable } from 'kysely';
import type { SettlementCheckDetailTable } from '../../db/tables/settlement.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';

/**
 * The check records behind a detail (spec A 2.6 EstimationCardCheckDetailResponse, B 2.3): read live
 * from card_check for an estimation, copied into settlement_check_detail for a settlement order.
 */
export interface CheckDetail {
  cardModelName: string | null;
  sceneryName: string | null;
  touristName: string | null;
  touristPhone: string | null;
  cardNumber: string | null;
  checkTime: string | null;
  checkerId: number | null;
  checkerName: string | null;
}

/** Which checks a detail was computed from: the model's living checks at one resource in the period. */
export interface CheckScope {
  cardModelId: number;
  resourceId: number;
  start: Date;
  end: Date;
  maxCheckId: number;
}

function liveChecks(db: Executor, s: CheckScope) {
  return db
    .selectFrom('card_check as c')
    .innerJoin('card as k', 'k.id', 'c.card_id')
    .innerJoin('card_model as m', 'm.id', 'c.card_model_id')
    .innerJoin('spu as s', 's.id', 'c.resource_id')
    .leftJoin('checker as ch', 'ch.id', 'c.checker_id')
    .where('c.card_model_id', '=', s.cardModelId)
    .where('c.resource_id', '=', s.resourceId)
    .where('c.check_time', '>=', s.start)
    .where('c.check_time', '<=', s.end)
    .where('c.is_deleted', '=', false)
    .where('c.id', '<=', s.maxCheckId);
}

/** A page of the live checks of a detail, newest first; keywords in tourist name, phone and card number. */
export function pageLiveChecks(
  db: Executor,
  s: CheckScope,
  keywords: string | null | undefined,
  page: PageRequest,
): Promise<Page<CheckDetail>> {
  let q = liveChecks(db, s).select([
    'c.id',
    'm.name as card_model_name',
    's.name as scenery_name',
    'c.tourist_name',
    'c.tourist_mobile',
    'k.card_number',
    'c.check_time',
    'c.checker_id',
    'ch.name as checker_name',
  ]);
  const kw = keywordsCondition(keywords, ['c.tourist_name', 'c.tourist_mobile', 'k.card_number']);
  if (kw) q = q.where(kw);
  return paginate(db, q.orderBy('c.check_time', 'desc').orderBy('c.id', 'desc'), page, (r) => ({
    cardModelName: r.card_model_name,
    sceneryName: r.scenery_name,
    touristName: r.tourist_name,
    touristPhone: r.tourist_mobile,
    cardNumber: r.card_number,
    checkTime: formatDateTime(r.check_time),
    checkerId: r.checker_id,
    checkerName: r.checker_name,
  }));
}

/** Copies the checks of a detail into its snapshot rows, in one INSERT … SELECT. */
export async function snapshotChecks(
  db: Executor,
  settlementId: number,
  detailId: number,
  s: CheckScope,
): Promise<void> {
  await sql`
    insert into settlement_check_detail
      (settlement_id, settlement_detail_id, check_id, card_model_name, scenery_name, tourist_name, tourist_phone,
       card_number, check_time, checker_id, checker_name, consume_num)
    select ${settlementId}, ${detailId}, c.id, m.name, s.name, c.tourist_name, c.tourist_mobile,
           k.card_number, c.check_time, c.checker_id, ch.name, c.consume_num
    from card_check c
    join card k on k.id = c.card_id
    join card_model m on m.id = c.card_model_id
    join spu s on s.id = c.resource_id
    left join checker ch on ch.id = c.checker_id
    where c.card_model_id = ${s.cardModelId} and c.resource_id = ${s.resourceId}
      and c.check_time >= ${s.start} and c.check_time <= ${s.end} and not c.is_deleted and c.id <= ${s.maxCheckId}
    order by c.check_time, c.id`.execute(db);
}

export async function deleteSnapshots(db: Executor, detailIds: number[]): Promise<void> {
  if (detailIds.length)
    await db.deleteFrom('settlement_check_detail').where('settlement_detail_id', 'in', detailIds).execute();
}

/** A check copied into a settlement order, as the export reads it. */
export interface CheckSnapshot {
  id: number;
  cardModelName: string | null;
  sceneryName: string | null;
  touristName: string | null;
  touristPhone: string | null;
  cardNumber: string | null;
  checkTime: Date;
  checkerId: number | null;
  checkerName: string | null;
  consumeNum: number;
}

function toSnapshot(r: Selectable<SettlementCheckDetailTable>): CheckSnapshot {
  return {
    id: r.id,
    cardModelName: r.card_model_name,
    sceneryName: r.scenery_name,
    touristName: r.tourist_name,
    touristPhone: r.tourist_phone,
    cardNumber: r.card_number,
    checkTime: r.check_time,
    checkerId: r.checker_id,
    checkerName: r.checker_name,
    consumeNum: r.consume_num,
  };
}

function toCheckDetail(r: CheckSnapshot): CheckDetail {
  return {
    cardModelName: r.cardModelName,
    sceneryName: r.sceneryName,
    touristName: r.touristName,
    touristPhone: r.touristPhone,
    cardNumber: r.cardNumber,
    checkTime: formatDateTime(r.checkTime),
    checkerId: r.checkerId,
    checkerName: r.checkerName,
  };
}

function snapshots(db: Executor, detailId: number, keywords: string | null | undefined) {
  let q = db.selectFrom('settlement_check_detail').selectAll().where('settlement_detail_id', '=', detailId);
  const kw = keywordsCondition(keywords, [
    'settlement_check_detail.tourist_name',
    'settlement_check_detail.tourist_phone',
    'settlement_check_detail.card_number',
  ]);
  if (kw) q = q.where(kw);
  return q;
}

export function pageSnapshots(
  db: Executor,
  detailId: number,
  keywords: string | null | undefined,
  page: PageRequest,
): Promise<Page<CheckDetail>> {
  return paginate(db, snapshots(db, detailId, keywords).orderBy('id'), page, (r) => toCheckDetail(toSnapshot(r)));
}

/** Keyset read for the export, in id order; each batch is mapped as it arrives, so the export still streams. */
export async function snapshotsAfter(
  db: Executor,
  detailId: number,
  keywords: string | null | undefined,
  afterId: number | null,
  limit: number,
): Promise<CheckSnapshot[]> {
  let q = snapshots(db, detailId, keywords);
  if (afterId !== null) q = q.where('id', '>', afterId);
  return (await q.orderBy('id').limit(limit).execute()).map(toSnapshot);
}
