/**
 * The bound an offline scan broke when it was recorded anyway (card_check_conflict.kind, issue 39):
 * the gate had already admitted the visitor, so the check is written and the conflict kept for the
 * manage channel (docs/domain.md §4.1).
 */
export const ConflictKind = {
  /** the card's daily limit at the resource */
  DAILY_LIMIT: 1,
  /** the spot's (SKU's) daily capacity */
  SPOT_CAPACITY: 2,
  /** the capacity of the spot's time slot that holds the scan's time */
  SLOT_CAPACITY: 3,
} as const;

export type ConflictKind = (typeof ConflictKind)[keyof typeof ConflictKind];

/** A bound a recorded check broke: its limit, and the count after the check. */
export interface CheckConflict {
  kind: number;
  limit: number;
  count: number;
}
