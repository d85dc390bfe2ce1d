import type { AppError } from '../../platform/errors.js';
import { dayText } from '../../platform/date-range.js';
import {
  cardDisabled, cardExpired, cardNotActiveYet, cardNotBound, cardNotValidHere, cardUnknown, dailyLimitReached, noCardForPerson, notAllowedHere,
} from './checkin.errors.js';

/** Where a scan happens, as the verifier's session and the request name it (DOMAIN.md §4 step 1). */
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
  /** a relation of the verifier covers this SKU (and the entrance, when one is named) */
  allowed: boolean;
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
}

export const CardStatus = { UNBOUND: 1, BOUND: 2, DISABLED: 3, EXPIRED: 4 } as const;

/** How the card was named: its number, or its holder (ID document or face). */
export type ScanBy = 'card' | 'person';

/**
 * The verifier must be posted at the place: an unknown or deleted SKU is refused the same way, so the
 * answer does not tell a stranger which SKUs exist.
 */
export function assertAllowed(place: ScanPlace | null, skuId: number, entranceId: number | null): ScanPlace {
  if (!place || !place.allowed) throw notAllowedHere(place ? place.skuName : `scenic spot ${skuId}`);
  if (entranceId !== null && !place.entranceFound) throw notAllowedHere(`gate ${entranceId} of ${place.skuName}`);
  return place;
}

/** The first refusal of one card at `at` (DOMAIN.md §4 steps 2–3), ranked by how far the card got. */
function verdict(card: CardCandidate, place: ScanPlace, at: Date, offline: boolean): { rank: number; error: AppError } | null {
  if (!card.bound || card.status === CardStatus.UNBOUND) return { rank: 0, error: cardNotBound() };
  if (card.status === CardStatus.DISABLED) return { rank: 1, error: cardDisabled() };
  if (!card.activeTime || card.activeTime.getTime() > at.getTime()) return { rank: 2, error: cardNotActiveYet() };
  // Judged at the scan's time: an offline scan made before the card expired still counts, even if
  // the card has been marked expired since. Online, a card marked expired is expired.
  const expiredByTime = card.expireTime !== null && card.expireTime.getTime() < at.getTime();
  const expiredByStatus = card.status === CardStatus.EXPIRED && (!offline || card.expireTime === null);
  if (expiredByTime || expiredByStatus) return { rank: 3, error: cardExpired(card.expireTime ? dayText(card.expireTime) : 'an earlier date') };
  if (card.dailyLimit === null) return { rank: 4, error: cardNotValidHere(place.skuName) };
  return null;
}

/** The card a scan means and, when it cannot pass, why: the failed-scan log keeps the card either way. */
export type CardChoice =
  | { card: CardCandidate & { dailyLimit: number }; refusal: null }
  | { card: CardCandidate | null; refusal: AppError };

/**
 * The card a scan checks in. A card number names one card; an ID number or a face names a person,
 * who may hold several cards: the first usable one wins (the one expiring soonest, so the older card
 * is used up first). When none is usable the refusal of the card that got furthest is given, which is
 * the one the holder most likely meant.
 */
export function chooseCard(candidates: CardCandidate[], by: ScanBy, place: ScanPlace, at: Date, offline: boolean, consumeNum: number): CardChoice {
  if (candidates.length === 0) return { card: null, refusal: by === 'card' ? cardUnknown() : noCardForPerson() };
  const ordered = [...candidates].sort((a, b) => (a.expireTime?.getTime() ?? Infinity) - (b.expireTime?.getTime() ?? Infinity) || a.id - b.id);
  let best: { card: CardCandidate; rank: number; error: AppError } | null = null;
  for (const card of ordered) {
    const refused = verdict(card, place, at, offline);
    if (!refused) {
      const limit = card.dailyLimit!;
      // More entries in one scan than a whole day allows can never pass.
      if (consumeNum > limit) return { card, refusal: dailyLimitReached(limit, consumeNum) };
      return { card: { ...card, dailyLimit: limit }, refusal: null };
    }
    if (!best || refused.rank > best.rank) best = { card, ...refused };
  }
  return { card: best!.card, refusal: best!.error };
}
