import type { AppError } from '../../platform/errors.js';
import { dayText } from '../../platform/date-range.js';
import {
  cardDisabled,
  cardExpired,
  cardNotActiveYet,
  cardNotBound,
  cardNotValidHere,
  cardUnknown,
  checkTimeInFuture,
  checkTimeTooOld,
  dailyLimitReached,
  noCardForPerson,
  notAllowedHere,
  gateNotNamed,
} from './checkin.errors.js';

/** Where a scan happens, as the verifier's session and the request name it (docs/domain.md §4 step 1). */
export interface ScanPlace {
  skuId: number;
  skuName: string;
  resourceId: number;
  resourceName: string;
  merchantId: number;
  shopId: number | null;
  /** the requested entrance, when it is a living gate of this SKU */
  entranceName: string | null;
  entranceFound: boolean;
  /** a relation of the verifier covers this SKU and the entrance (a scan naming no entrance: every gate) */
  allowed: boolean;
  /** a relation of the verifier names this SKU, for any of its gates */
  posted: boolean;
}

/** A card the scan may mean, with its holder and the rule of its model for the place's resource. */
export interface CardCandidate {
  id: number;
  cardNumber: string;
  modelId: number;
  modelName: string;
  status: number;
  activeTime: Date | null;
  expireTime: Date | null;
  bound: boolean;
  holderName: string | null;
  holderPhone: string | null;
  holderIdNo: string | null;
  holderFacePhoto: string | null;
  /** null when the card's model has no rule for the resource */
  dailyLimit: number | null;
  /** how far the card gets at the scan's time (CardStanding), judged where it is read */
  standing: number;
  /** its place in the order a person's cards are used in (1 first), decided where it is read */
  useRank: number;
  /**
   * the usable card the scan's write took or tried: the first in order of use with room left for the
   * scan's entries that day, else the first in order of use (decided where it is read)
   */
  chosen: boolean;
}

export const CardStatus = { UNBOUND: 1, BOUND: 2, DISABLED: 3, EXPIRED: 4 } as const;

/**
 * How far a card gets at a scan (docs/domain.md §4 steps 2–3), each step a refusal of its own: the higher,
 * the further. checkin.repository computes it in the statement that writes a passing check, so the
 * rules that admit a card live in one place, and the service only names the refusal.
 */
export const CardStanding = {
  NOT_BOUND: 0,
  DISABLED: 1,
  NOT_ACTIVE_YET: 2,
  EXPIRED: 3,
  NOT_VALID_HERE: 4,
  USABLE: 5,
} as const;

/** How the card was named: its number, or its holder (ID document or face). */
export type ScanBy = 'card' | 'person';

/**
 * The verifier must be posted at the place: an unknown or deleted SKU is refused the same way, so the
 * answer does not tell a stranger which SKUs exist.
 */
export function assertAllowed(place: ScanPlace | null, skuId: number, entranceId: number | null): ScanPlace {
  if (place && !place.allowed && place.posted && entranceId === null) throw gateNotNamed(place.skuName);
  if (!place || !place.allowed) throw notAllowedHere(place ? place.skuName : `scenic spot ${skuId}`);
  if (entranceId !== null && !place.entranceFound) throw notAllowedHere(`gate ${entranceId} of ${place.skuName}`);
  return place;
}

/** The refusal of a card that is not usable, after its standing. */
function refusalOf(card: CardCandidate, place: ScanPlace): AppError | null {
  switch (card.standing) {
    case CardStanding.NOT_BOUND:
      return cardNotBound();
    case CardStanding.DISABLED:
      return cardDisabled();
    case CardStanding.NOT_ACTIVE_YET:
      return cardNotActiveYet();
    case CardStanding.EXPIRED:
      return cardExpired(card.expireTime ? dayText(card.expireTime) : 'an earlier date');
    case CardStanding.NOT_VALID_HERE:
      return cardNotValidHere(place.skuName);
    default:
      return null;
  }
}

/** The card a scan means and, when it cannot pass, why: the failed-scan log keeps the card either way. */
export type CardChoice =
  { card: CardCandidate & { dailyLimit: number }; refusal: null } | { card: CardCandidate | null; refusal: AppError };

/**
 * The card a scan checks in. A card number names one card; an ID number or a face names a person,
 * who may hold several cards: the first usable one wins (the one expiring soonest, so the older card
 * is used up first), a card without room for the scan's entries that day not being usable. The write
 * decided that (`chosen`); when no card had room it tried the first in order, whose limit is the
 * refusal. When none is usable the refusal of the card that got furthest is given, which is the one
 * the holder most likely meant.
 */
export function chooseCard(candidates: CardCandidate[], by: ScanBy, place: ScanPlace, consumeNum: number): CardChoice {
  if (candidates.length === 0) return { card: null, refusal: by === 'card' ? cardUnknown() : noCardForPerson() };
  const ordered = [...candidates].sort(byUse);
  const isUsable = (card: CardCandidate) => card.standing === CardStanding.USABLE && card.dailyLimit !== null;
  const usable = ordered.find((card) => card.chosen && isUsable(card)) ?? ordered.find(isUsable);
  if (usable) {
    const limit = usable.dailyLimit!;
    // More entries in one scan than a whole day allows can never pass.
    if (consumeNum > limit) return { card: usable, refusal: dailyLimitReached(limit, consumeNum) };
    return { card: { ...usable, dailyLimit: limit }, refusal: null };
  }
  const best = ordered.reduce((a, b) => (b.standing > a.standing ? b : a));
  return { card: best, refusal: refusalOf(best, place) ?? cardNotValidHere(place.skuName) };
}

/** The order a person's cards are used in, as the statement that writes a check ranked them. */
const byUse = (a: CardCandidate, b: CardCandidate) => a.useRank - b.useRank;

/** How far back an offline scan may be sent, and how far ahead a device clock may run. */
export const OFFLINE_MAX_AGE_H = 72;
export const CLOCK_SKEW_S = 60;

/** A device clock a little ahead is not refused: the scan counts as made now, and a record never lies in the future. */
export const clampSkew = (at: Date, now: Date): Date =>
  at.getTime() > now.getTime() && at.getTime() <= now.getTime() + CLOCK_SKEW_S * 1000 ? now : at;

/** An offline scan is accepted up to 72 hours late, never from the future (docs/domain.md §4, issue 9). */
export function scanTimeRefusal(at: Date, now: Date): AppError | null {
  if (at.getTime() > now.getTime()) return checkTimeInFuture();
  if (now.getTime() - at.getTime() > OFFLINE_MAX_AGE_H * 3_600_000) return checkTimeTooOld(OFFLINE_MAX_AGE_H);
  return null;
}
