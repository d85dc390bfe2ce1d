import { zonedDay } from './clock.js';
import { cardHashOf, type StoredPack } from './pack.js';

/**
 * The offline decision (docs/domain.md §4.1): the pack's `cardRules` in their order, with the codes
 * the pack names, so the gate answers what the server would have. The spot's capacity is not in the
 * pack: the server counts offline scans against it when they arrive.
 */

export interface ScanInput {
  skuId: number;
  entranceId: number | null;
  cardNumber: string;
  consumeNum: number;
  at: Date;
}

export type Decision =
  | { admit: true; resourceId: number; day: string; holder: string | null; used: number; limit: number }
  | { admit: false; rule: string; code: number | null; reason: string };

/** Entries the gate itself admitted for this card at this resource on this day that the pack does not count yet. */
export type OwnEntries = (cardNumber: string, resourceId: number, day: string) => number;

export function decide(pack: StoredPack, scan: ScanInput, own: OwnEntries): Decision {
  const code = (rule: string) => pack.cardRules.find(([name]) => name === rule)?.[1] ?? null;
  const refuse = (rule: string, reason: string): Decision => ({ admit: false, rule, code: code(rule), reason });
  const at = scan.at.getTime();

  if (at >= pack.expiresAt)
    return refuse('PACK_EXPIRED', `the pack expired at ${new Date(pack.expiresAt).toISOString()}: refresh it online`);
  const spot = pack.spots.find((s) => s.skuId === scan.skuId);
  if (!spot) return refuse('NOT_ALLOWED_HERE', `not posted at scenic spot ${scan.skuId}`);
  if (scan.entranceId === null && !spot.allGates)
    return refuse('NOT_ALLOWED_HERE', `posted at certain gates of ${spot.name} only: name the gate (--entrance)`);
  if (scan.entranceId !== null && !spot.gates.some((g) => g.id === scan.entranceId))
    return refuse('NOT_ALLOWED_HERE', `not posted at gate ${scan.entranceId} of ${spot.name}`);

  const card = pack.cards[cardHashOf(pack, scan.cardNumber)];
  if (!card) return refuse('CARD_UNKNOWN', 'card not found (unknown, unbound, disabled or expired)');
  if (card.activeMs > at) return refuse('CARD_NOT_ACTIVE_YET', 'the card is not activated yet');
  if (card.expireMs !== null && card.expireMs < at) return refuse('CARD_EXPIRED', 'the card has expired');
  const rule = pack.rules.find((r) => r.modelId === card.modelId && r.resourceId === spot.resourceId);
  if (!rule) return refuse('CARD_NOT_VALID_HERE', `the card is not valid at ${spot.name}`);

  // usedToday is of the pack's day: on a later day the gate counts only its own scans.
  const day = zonedDay(scan.at, pack.timeZone);
  const packed = day === pack.day ? (card.usedToday.find(([r]) => r === spot.resourceId)?.[1] ?? 0) : 0;
  const used = packed + own(scan.cardNumber, spot.resourceId, day);
  if (used + scan.consumeNum > rule.dailyLimit)
    return refuse('DAILY_LIMIT_REACHED', `daily limit ${rule.dailyLimit} here, ${used} used today`);
  return { admit: true, resourceId: spot.resourceId, day, holder: card.holder, used, limit: rule.dailyLimit };
}
