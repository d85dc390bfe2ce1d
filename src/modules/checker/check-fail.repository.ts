import type { Scope } from '../../platform/auth/permissions.js';
import { codeText } from '../../platform/http/schemas.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { keywordsCondition } from '../../platform/db/text-match.js';
import type { DateRange } from '../../platform/date-range.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import type { CheckFail } from './checkin.schemas.js';

/** The failed-scan log: refused scans and the reason the verifier was given. */

export interface NewCheckFail {
  checkerId: number;
  merchantId: number | null;
  shopId: number | null;
  skuId: number;
  entranceId: number | null;
  cardId: number | null;
  cardNumber: string | null;
  idType: number | null;
  idNo: string | null;
  facePhoto: string | null;
  checkType: number;
  consumeNum: number;
  checkTime: Date;
  errcode: number;
  reason: string;
  nonce: string | null;
}

/** A re-sent refused scan (same nonce) is logged once. */
export async function insertCheckFail(db: Executor, f: NewCheckFail): Promise<void> {
  await db
    .insertInto('card_check_fail')
    .values({
      checker_id: f.checkerId,
      merchant_id: f.merchantId,
      shop_id: f.shopId,
      sku_id: f.skuId,
      entrance_id: f.entranceId,
      card_id: f.cardId,
      card_number: f.cardNumber,
      id_type: f.idType,
      id_no: f.idNo,
      face_photo: f.facePhoto,
      check_type: f.checkType,
      consume_num: f.consumeNum,
      check_time: f.checkTime,
      errcode: f.errcode,
      reason: f.reason.slice(0, 255),
      nonce: f.nonce,
    })
    .onConflict((oc) => oc.columns(['checker_id', 'nonce']).where('nonce', 'is not', null).doNothing())
    .execute();
}

export interface CheckFailFilter {
  checkerId?: number | null;
  skuId?: number | null;
  errcode?: number | null;
  checkTime: DateRange | null;
  keywords?: string | null;
}

export function pageCheckFails(
  db: Executor,
  f: CheckFailFilter,
  scope: Scope,
  page: PageRequest,
): Promise<Page<CheckFail>> {
  let q = db
    .selectFrom('card_check_fail as f')
    .leftJoin('checker as k', 'k.id', 'f.checker_id')
    .leftJoin('sku as s', 's.id', 'f.sku_id')
    .leftJoin('sku_entrance as e', 'e.id', 'f.entrance_id')
    .select([
      'f.id',
      'f.checker_id',
      'k.name as checker_name',
      'f.sku_id',
      's.sku_name',
      'f.entrance_id',
      'e.entrance_name',
      'f.card_id',
      'f.card_number',
      'f.id_type',
      'f.id_no',
      'f.face_photo',
      'f.check_type',
      'f.consume_num',
      'f.check_time',
      'f.errcode',
      'f.reason',
      'f.nonce',
      'f.created_at',
    ])
    .where(scopeCondition(scope, 'f.merchant_id', 'f.shop_id'));
  if (f.checkerId != null) q = q.where('f.checker_id', '=', f.checkerId);
  if (f.skuId != null) q = q.where('f.sku_id', '=', f.skuId);
  if (f.errcode != null) q = q.where('f.errcode', '=', f.errcode);
  if (f.checkTime) q = q.where('f.check_time', '>=', f.checkTime.start).where('f.check_time', '<=', f.checkTime.end);
  const kw = keywordsCondition(f.keywords, ['f.card_number', 'f.id_no', 'f.reason', 'k.name']);
  if (kw) q = q.where(kw);
  return paginate(db, q.orderBy('f.id', 'desc'), page, (r) => ({
    id: r.id,
    checkerId: r.checker_id,
    checkerName: r.checker_name,
    skuId: r.sku_id,
    skuName: r.sku_name,
    entranceId: r.entrance_id,
    entranceName: r.entrance_name,
    cardId: r.card_id,
    cardNumber: r.card_number,
    idType: codeText(r.id_type),
    idNo: r.id_no,
    facePhoto: r.face_photo,
    checkType: r.check_type,
    consumeNum: r.consume_num,
    checkTime: formatDateTime(r.check_time),
    errcode: r.errcode,
    reason: r.reason,
    nonce: r.nonce,
    createdTime: formatDateTime(r.created_at),
  }));
}
