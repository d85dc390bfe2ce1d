import { AppError, errcodes, notFound } from '../../platform/errors.js';
import { FaceError } from '../../platform/face/index.js';

/**
 * Check-in refusals, 1_013_000_000+ (docs/errors.md). Each has its own code, so the verifier's app can
 * react to it, and a message short and plain enough to be read out at the gate.
 */
const CHECKIN_RANGE = 1_013_000_000;

export const CheckinError = errcodes({
  CARD_UNKNOWN: [1_013_000_001, 'card not found'],
  CARD_NOT_BOUND: [1_013_000_002, 'the card is not bound to a holder'],
  CARD_DISABLED: [1_013_000_003, 'the card is disabled'],
  CARD_EXPIRED: [1_013_000_004, "the card had expired at the scan's time"],
  CARD_NOT_VALID_HERE: [
    1_013_000_005,
    'the card is not valid at this scenic spot (its model has no rule for the resource)',
  ],
  NOT_ALLOWED_HERE: [1_013_000_006, 'the verifier is not assigned to this scenic spot or gate (or the SKU is unknown)'],
  DAILY_LIMIT_REACHED: [1_013_000_007, "the card's daily limit here is reached (or fewer entries are left than asked)"],
  NO_CARD_FOR_PERSON: [1_013_000_008, 'no card is bound to this person (ID document or face)'],
  FACE_NOT_RECOGNISED: [1_013_000_009, 'the face was not recognised'],
  CARD_NOT_ACTIVE_YET: [1_013_000_010, "the card was not yet activated at the scan's time"],
  CHECK_TIME_TOO_OLD: [1_013_000_011, 'an offline scan more than 72 hours old'],
  CHECK_TIME_IN_FUTURE: [1_013_000_012, 'the scan time is in the future'],
  NONCE_REUSED: [1_013_000_013, 'the nonce was already used for another scan'],
  RECORD_NOT_YOURS: [1_013_000_014, "revoking a check that is not the verifier's own"],
  RECORD_NOT_TODAY: [1_013_000_015, 'revoking a check that is not of today'],
  SPOT_CAPACITY_REACHED: [1_013_000_016, "the scenic spot's daily capacity is reached"],
  SLOT_CAPACITY_REACHED: [1_013_000_017, "the capacity of the scenic spot's current time slot is reached"],
});

const refusal = (code: number, message: string) => new AppError(code, message);

export const cardUnknown = () => refusal(CheckinError.CARD_UNKNOWN, 'Card not found. Please check the card number.');
export const cardNotBound = () => refusal(CheckinError.CARD_NOT_BOUND, 'This card has not been bound to a holder yet.');
export const cardDisabled = () => refusal(CheckinError.CARD_DISABLED, 'This card has been disabled.');
export const cardExpired = (on: string) => refusal(CheckinError.CARD_EXPIRED, `This card expired on ${on}.`);
export const cardNotActiveYet = () =>
  refusal(CheckinError.CARD_NOT_ACTIVE_YET, 'This card was not yet activated at the time of the scan.');
export const cardNotValidHere = (spot: string) =>
  refusal(CheckinError.CARD_NOT_VALID_HERE, `This card is not valid at ${spot}.`);
export const notAllowedHere = (what: string) =>
  refusal(CheckinError.NOT_ALLOWED_HERE, `You are not assigned to check at ${what}.`);
/** A verifier posted at certain gates only scanned without saying at which one. */
export const gateNotNamed = (spot: string) =>
  refusal(CheckinError.NOT_ALLOWED_HERE, `You are assigned to certain gates of ${spot} only: please name the gate.`);
const entries = (n: number) => (n === 1 ? 'one entry' : `${n} entries`);

/** The day's entries at this resource are used up, or fewer are left than the scan asks for. */
export const dailyLimitReached = (limit: number, asked = 1) =>
  refusal(
    CheckinError.DAILY_LIMIT_REACHED,
    asked > limit
      ? `This card allows ${entries(limit)} a day here, not ${asked}.`
      : asked > 1
        ? `This card does not have ${asked} entries left here today (daily limit ${limit}).`
        : limit === 1
          ? 'This card has already been used here today.'
          : `This card has already been used here ${limit} times today, the daily limit.`,
  );
/** The spot admitted its day's capacity (docs/domain.md §4.1); read out at the gate. */
export const spotCapacityReached = (capacity: number) =>
  refusal(
    CheckinError.SPOT_CAPACITY_REACHED,
    `This scenic spot is full today: it admits ${capacity} visitors a day. No more entries today.`,
  );
const clock = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
/** The spot's time slot holding the scan's time admitted its capacity. */
export const slotCapacityReached = (capacity: number, startMinute: number, endMinute: number) =>
  refusal(
    CheckinError.SLOT_CAPACITY_REACHED,
    `This scenic spot is full from ${clock(startMinute)} to ${clock(endMinute)} (${capacity} visitors). Please come in a later time slot.`,
  );
export const noCardForPerson = () => refusal(CheckinError.NO_CARD_FOR_PERSON, 'No card is bound to this person.');
export const faceNotRecognised = () =>
  refusal(CheckinError.FACE_NOT_RECOGNISED, 'Face not recognised. Please scan the card or ID card instead.');
export const checkTimeTooOld = (hours: number) =>
  refusal(
    CheckinError.CHECK_TIME_TOO_OLD,
    `This offline scan is more than ${hours} hours old and can no longer be accepted.`,
  );
export const checkTimeInFuture = () =>
  refusal(CheckinError.CHECK_TIME_IN_FUTURE, 'The scan time is in the future. Please check the device clock.');
export const nonceReused = () =>
  refusal(CheckinError.NONCE_REUSED, 'This scan id (nonce) was already used for another scan.');

export const recordNotFound = () => notFound('check record');
export const recordNotYours = () =>
  refusal(CheckinError.RECORD_NOT_YOURS, 'Only the verifier who made a check can revoke it.');
export const recordNotToday = () => refusal(CheckinError.RECORD_NOT_TODAY, 'Only checks of today can be revoked.');

const FACE_REFUSALS = new Set<number>([FaceError.NO_FACE, FaceError.IMAGE_UNREADABLE]);

/**
 * The refusals a scan is logged for and that a re-sent scan (same nonce) answers again: this module's
 * and the face service's verdicts on the photo. An outage (face service unavailable, database down) is
 * not a verdict: it is not logged as a refused scan, and a re-send is tried afresh.
 */
export function isScanRefusal(err: unknown): err is AppError {
  if (!(err instanceof AppError)) return false;
  return (err.errcode > CHECKIN_RANGE && err.errcode < CHECKIN_RANGE + 1_000_000) || FACE_REFUSALS.has(err.errcode);
}
