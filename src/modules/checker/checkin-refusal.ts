import type { Db } from '../../platform/db/database.js';
import type { AppError } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { CardCandidate, ScanPlace } from './checkin-rules.js';
import { insertCheckFail } from './check-fail.repository.js';

/** How a scan named the card: card_check.check_type and card_check_fail.check_type. */
export const CheckType = { CARD: 1, ID_DOCUMENT: 2, FACE: 3 } as const;

/** A refused scan as its failed-scan log row keeps it: the identifiers as sent. */
export interface RefusedScan {
  skuId: number;
  entranceId: number | null;
  checkType: number;
  cardNumber: string | null;
  idType: number | null;
  idNo: string | null;
  /** a photo worth keeping (a URL), else null */
  facePhoto: string | null;
  consumeNum: number;
  at: Date;
  nonce: string | null;
}

/**
 * Logs a refusal of an online or an offline scan in the failed-scan log (docs/domain.md §4). `place`:
 * the SKU as read, allowed or not; its owner owns the row (the verifier's merchant and shop when the
 * SKU is unknown). `card`: the card the scan was judged on, when one was found; it fills the number or
 * the holder's ID number the scan did not name.
 */
export async function logScanRefusal(
  db: Db,
  ctx: AuthedContext,
  scan: RefusedScan,
  place: ScanPlace | null,
  card: CardCandidate | null,
  err: AppError,
): Promise<void> {
  await insertCheckFail(db, {
    checkerId: ctx.account.id,
    merchantId: place ? place.merchantId : ctx.account.merchantId,
    shopId: place ? place.shopId : ctx.account.shopId,
    skuId: scan.skuId,
    entranceId: scan.entranceId,
    cardId: card?.id ?? null,
    cardNumber: scan.cardNumber ?? card?.cardNumber ?? null,
    idType: scan.idType,
    idNo: scan.idNo ?? card?.holderIdNo ?? null,
    facePhoto: scan.facePhoto,
    checkType: scan.checkType,
    consumeNum: scan.consumeNum,
    checkTime: scan.at,
    errcode: err.errcode,
    reason: err.message,
    nonce: scan.nonce,
  });
}
