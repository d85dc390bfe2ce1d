import type { Db } from '../../platform/db/database.js';
import { normaliseIdNumber } from '../../platform/id-document.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { dayText, parseDateField } from '../../platform/date-range.js';
import { AppError, badRequest } from '../../platform/errors.js';
import type { FaceService } from '../../platform/face/index.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { operationLogWritten, pendingOperationLog, recordOperation } from '../../platform/oplog/oplog.js';
import { formatDateTime } from '../../platform/time.js';
import {
  assertAllowed,
  chooseCard,
  clampSkew,
  scanTimeRefusal,
  type CardCandidate,
  type ScanPlace,
} from './checkin-rules.js';
import {
  CheckinError,
  dailyLimitReached,
  faceNotRecognised,
  isScanRefusal,
  nonceReused,
  slotCapacityReached,
  spotCapacityReached,
} from './checkin.errors.js';
import { CheckType, logScanRefusal } from './checkin-refusal.js';
import * as repo from './checkin.repository.js';
import type { CheckInRequest, CheckInResponse } from './checkin.schemas.js';
import { findRecord, toWire } from './consume-record.repository.js';

/** A scan as the request states it, checked for shape (400s) but not yet judged. */
interface Scan {
  skuId: number;
  entranceId: number | null;
  checkType: 1 | 2 | 3;
  cardNumber: string | null;
  idNo: string | null;
  idType: number | null;
  facePhoto: string | null;
  consumeNum: number;
  /** when the scan was made: the offline checkTime or now */
  at: Date;
  offline: boolean;
  nonce: string | null;
}

const given = (v: string | null | undefined) => (v == null || v.trim() === '' ? null : v.trim());

function readScan(input: CheckInRequest, now: Date): Scan {
  const cardNumber = given(input.cardNumber);
  // As bindings store it (normaliseIdNumber): a verifier typing the check letter in lower case finds the card.
  const idNo = input.idNo == null ? null : given(normaliseIdNumber(input.idNo));
  const facePhoto = given(input.facePhoto);
  const named = [cardNumber, idNo, facePhoto].filter((v) => v !== null).length;
  if (named === 0) throw badRequest('cardNumber, idNo or facePhoto is required: one of them names the card');
  if (named > 1) throw badRequest('cardNumber, idNo and facePhoto exclude each other: send only one');
  const checkType = cardNumber ? CheckType.CARD : idNo ? CheckType.ID_DOCUMENT : CheckType.FACE;
  if (input.checkType != null && input.checkType !== checkType) {
    throw badRequest('checkType is invalid: 1 goes with cardNumber, 2 with idNo, 3 with facePhoto');
  }
  const claimed = given(input.checkTime);
  const at = claimed ? parseDateField('checkTime', claimed) : now;
  return {
    skuId: input.skuId,
    entranceId: input.entranceId ?? null,
    checkType,
    cardNumber,
    idNo,
    idType: idNo ? (input.idType ?? null) : null,
    facePhoto,
    consumeNum: input.consumeNum ?? 1,
    at: clampSkew(at, now),
    offline: claimed !== null,
    nonce: given(input.nonce),
  };
}

function assertScanTime(scan: Scan, now: Date): void {
  const refusal = scanTimeRefusal(scan.at, now);
  if (refusal) throw refusal;
}

/** The refusals of a usable card by a bound a concurrent scan may have taken the last room of. */
const BOUNDS = new Set<number>([
  CheckinError.DAILY_LIMIT_REACHED,
  CheckinError.SPOT_CAPACITY_REACHED,
  CheckinError.SLOT_CAPACITY_REACHED,
]);

/**
 * The refusal of a usable card the counters refused, in the order they are taken (docs/domain.md
 * §4.1): the card's daily limit, then the spot's day capacity, then its slot's.
 */
function boundRefusal(bound: repo.RefusedBound | null, dailyLimit: number, consumeNum: number): AppError {
  if (bound?.kind === 2) return spotCapacityReached(bound.capacity);
  if (bound?.kind === 3) return slotCapacityReached(bound.capacity, bound.startMinute, bound.endMinute);
  return dailyLimitReached(dailyLimit, consumeNum);
}

/** Only a photo given as a URL is worth keeping on the record; base64 bytes are not stored. */
const photoUrl = (photo: string | null) =>
  photo && /^https?:\/\//i.test(photo) && photo.length <= 1024 ? photo : null;

/**
 * `addCheckerConsumeRecord` (docs/domain.md §4): the verifier's check-in of a card named by its number, its
 * holder's ID document or face. A scan by card number or ID document is one statement
 * (`checkInScan`): it reads everything the scan is judged on and, when the scan passes, writes the
 * counter, the check and the operation-log row, atomic on its own and enforcing the daily limit. A
 * face scan first reads the verifier's post (`readScan`), then asks the face service, never inside a
 * statement's work, then runs the same statement for the person found. Refusals are logged in the
 * failed-scan log and answered with their code.
 */
export function createCheckinService(deps: { db: Db; face: FaceService; now?: () => Date }) {
  const { db, face } = deps;
  const now = deps.now ?? (() => new Date());

  async function personOf(photo: string): Promise<string> {
    const match = await face.search(photo);
    if (!match) throw faceNotRecognised();
    return match.personId;
  }

  /**
   * The answer an earlier send of this scan got; the nonce must not be re-used for another scan. A
   * refusal is compared as a check is: its log row keeps the identifiers as sent (and the card's
   * number or holder's ID number it was about), so the same card or person is the same scan.
   */
  async function replay(ctx: AuthedContext, scan: Scan, earlier: repo.EarlierScan): Promise<CheckInResponse> {
    const sameScan =
      earlier.skuId === scan.skuId &&
      (scan.cardNumber === null || earlier.cardNumber === scan.cardNumber) &&
      (scan.idNo === null || earlier.idNo === scan.idNo);
    if (!sameScan) throw nonceReused();
    if (earlier.kind === 'refused') throw new AppError(earlier.errcode, earlier.reason);
    const record = await findRecord(db, earlier.checkId);
    if (!record) throw new Error(`check ${earlier.checkId} vanished`);
    await recordOperation(db, ctx, record.id);
    return Object.assign(toWire(record), { checksLeftToday: record.checksLeft ?? 0 });
  }

  return {
    async checkIn(ctx: AuthedContext, input: CheckInRequest): Promise<CheckInResponse> {
      const started = now();
      const scan = readScan(input, started);
      const checker = ctx.account;
      const where = { checkerId: checker.id, skuId: scan.skuId, entranceId: scan.entranceId };

      // The SKU as read, before the verifier's post is judged: the failed-scan log is filed under it.
      let place: ScanPlace | null = null;
      let card: CardCandidate | null = null;
      // A replayed answer (the stored record or refusal) is not a new refusal to log.
      let replaying = false;
      const answerEarlier = (earlier: repo.EarlierScan) => {
        replaying = true;
        return replay(ctx, scan, earlier);
      };
      try {
        const judged = { ...where, at: scan.at, offline: scan.offline, recordOverBounds: false };
        let reading: Awaited<ReturnType<typeof repo.checkInScan>>;
        const details = (nonceLookedUp: boolean) => ({
          consumeNum: scan.consumeNum,
          checkType: scan.checkType,
          checkDate: dayText(scan.at),
          nonce: scan.nonce,
          photo: photoUrl(scan.facePhoto),
          timeAllowed: nonceLookedUp ? scanTimeRefusal(scan.at, started) === null : true,
        });
        if (scan.facePhoto) {
          // A re-sent face scan is answered before the face service is asked, and the verifier's post
          // is checked before it too.
          const earlier = scan.nonce ? await repo.findEarlierScan(db, checker.id, scan.nonce) : null;
          if (earlier) return await answerEarlier(earlier);
          const post = await repo.readScan(db, { ...judged, key: null, nonce: null });
          place = post.place;
          assertAllowed(post.place, scan.skuId, scan.entranceId);
          assertScanTime(scan, started);
          const person = await personOf(scan.facePhoto);
          reading = await repo.checkInScan(
            db,
            { ...judged, key: { idNo: person, idType: null }, nonce: null },
            details(false),
            pendingOperationLog(ctx),
          );
        } else {
          // Read and, when the scan passes, write in one statement; a refused scan wrote nothing and
          // the reading says why, in the order docs/domain.md §4 gives.
          const key = scan.cardNumber ? { cardNumber: scan.cardNumber } : { idNo: scan.idNo!, idType: scan.idType };
          reading = await repo.checkInScan(
            db,
            { ...judged, key, nonce: scan.nonce },
            details(true),
            pendingOperationLog(ctx),
          );
          if (reading.earlier) return await answerEarlier(reading.earlier);
          place = reading.place;
        }
        const written = reading.written;
        // The verifier's post first (docs/domain.md §4 step 1), then the scan's time (the face path judged both already).
        const at = assertAllowed(reading.place, scan.skuId, scan.entranceId);
        assertScanTime(scan, started);
        const chosenCard = written ? reading.cards.find((c) => c.id === written.cardId) : undefined;
        if (!written || !chosenCard) {
          const choice = chooseCard(reading.cards, scan.cardNumber ? 'card' : 'person', at, scan.consumeNum);
          card = choice.card;
          throw choice.refusal ?? boundRefusal(reading.refusedBy, choice.card.dailyLimit, scan.consumeNum);
        }
        operationLogWritten(ctx);
        const chosen = chosenCard;
        return {
          id: written.id,
          cardNum: chosen.cardNumber,
          cardName: chosen.modelName,
          mcId: String(at.skuId),
          mcName: at.skuName,
          cmId: String(at.resourceId),
          cmName: at.resourceName,
          entranceName: at.entranceFound ? at.entranceName : null,
          consumeNum: scan.consumeNum,
          checkerId: checker.id,
          checkerName: checker.name,
          touristName: chosen.holderName,
          touristMobile: chosen.holderPhone,
          touristCardNo: chosen.holderIdNo,
          touristFacePhoto: photoUrl(scan.facePhoto) ?? chosen.holderFacePhoto,
          status: 1,
          isDeleted: false,
          checkTime: formatDateTime(scan.at),
          createdBy: checker.id,
          createdTime: formatDateTime(written.createdAt),
          updatedBy: checker.id,
          updatedTime: formatDateTime(written.createdAt),
          checkType: scan.checkType,
          checksLeftToday: written.checksLeft,
        };
      } catch (err) {
        if (replaying) throw err;
        // Two sends of one scan at the same moment: the second waited for the first and lost the
        // race on the nonce or on the day's entries; it answers what the first one wrote.
        const raced = isUniqueViolation(err, repo.NONCE_INDEX) || (err instanceof AppError && BOUNDS.has(err.errcode));
        if (scan.nonce && raced) {
          const earlier = await repo.findEarlierScan(db, checker.id, scan.nonce);
          if (earlier?.kind === 'checked') return replay(ctx, scan, earlier);
        }
        if (isScanRefusal(err))
          await logScanRefusal(db, ctx, { ...scan, facePhoto: photoUrl(scan.facePhoto) }, place, card, err);
        throw err;
      }
    },
  };
}

export type CheckinService = ReturnType<typeof createCheckinService>;
