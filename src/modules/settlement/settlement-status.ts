/**
 * A settlement order's status (spec B 2.3 settlementStatus; the machine is docs/domain.md §3): the
 * numbers are the wire's and the database's, named here so the code says which step it means.
 */
export const SettlementStatus = {
  PENDING_SPOT_CHECK: 1,
  PENDING_CALCULATION: 2,
  PENDING_REVIEW: 3,
  PENDING_INVOICE: 4,
  PENDING_PAYMENT: 5,
  COMPLETED: 6,
  VOIDED: 9,
} as const;
export type SettlementStatus = (typeof SettlementStatus)[keyof typeof SettlementStatus];

export const STATUS_NAMES: Record<number, string> = {
  [SettlementStatus.PENDING_SPOT_CHECK]: 'pending scenic-spot check',
  [SettlementStatus.PENDING_CALCULATION]: 'pending platform calculation',
  [SettlementStatus.PENDING_REVIEW]: 'pending platform review',
  [SettlementStatus.PENDING_INVOICE]: 'pending invoice',
  [SettlementStatus.PENDING_PAYMENT]: 'pending platform payment',
  [SettlementStatus.COMPLETED]: 'completed',
  [SettlementStatus.VOIDED]: 'voided',
};
