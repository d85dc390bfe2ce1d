import { sql } from 'kysely';
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

/**
 * A re-sent refused scan (same nonce) is logged once: one statement draws the row's id, claims the
 * nonce in card_check_fail_nonce pointing at it, and writes the row only when the claim took (or when
 * there is no nonce). A concurrent send of the same refusal waits on the claim and writes nothing.
 */
export async function insertCheckFail(db: Executor, f: NewCheckFail): Promise<void> {
  await sql`
    with drawn as (select nextval('card_check_fail_id_seq') as id, now() as at),
    claimed as (
      insert into card_check_fail_nonce (checker_id, nonce, fail_id, created_at)
      select ${f.checkerId}, ${f.nonce}, drawn.id, drawn.at from drawn where ${f.nonce}::text is not null
      on conflict (checker_id, nonce) do nothing
      returning fail_id
    )
    insert into card_check_fail (
      id, checker_id, merchant_id, shop_id, sku_id, entrance_id, card_id, card_number, id_type, id_no, face_photo,
      check_type, consume_num, check_time, errcode, reason, nonce, created_at
    )
    select drawn.id, ${f.checkerId}, ${f.merchantId}, ${f.shopId}, ${f.skuId}, ${f.entranceId}, ${f.cardId}, ${f.cardNumber},
      ${f.idType}, ${f.idNo}, ${f.facePhoto}, ${f.checkType}, ${f.consumeNum}, ${f.checkTime}, ${f.errcode},
      ${f.reason.slice(0, 255)}, ${f.nonce}, drawn.at
    from drawn
    where ${f.nonce}::text is null or exists (select 1 from claimed)`.execute(db);
}

/** The refusals' nonces of the log rows a retention dropped (the rows before `cutoff`). */
export async function deleteFailNoncesBefore(db: Executor, cutoff: Date): Promise<number> {
  const r = await db.deleteFrom('card_check_fail_nonce').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
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
