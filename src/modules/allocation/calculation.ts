import type { CardModelForCalc, ParkCheckCount } from './calc.repository.js';
import { largestRemainderSplit, percentText } from './split.js';

/** How a month's allocatable total is found (docs/domain.md §2). */
export type CalcSettings =
  { calcMode: 'ratio'; ratio: number; fixedAmount: null } | { calcMode: 'fixed'; ratio: null; fixedAmount: number };

export interface ScopeDetail {
  parkId: number;
  parkName: string;
  merchantId: number | null;
  shopId: number | null;
  checkNum: number;
  /** percent of the scope's checks, four decimals, exact text */
  distributePercent: string;
  distributeAmount: number;
}

/** The result of one scope (year, month, card model): what previewCalc shows and executeCalc stores. */
export interface ScopeResult {
  year: number;
  month: number;
  quarter: number;
  cardModelId: number;
  cardModelName: string;
  cardModelPrice: number;
  validUserCount: number;
  totalDistributeAmount: number;
  parkCount: number;
  ratio: number | null;
  calcMode: 'ratio' | 'fixed';
  fixedAmount: number | null;
  details: ScopeDetail[];
}

export const quarterOf = (month: number) => Math.ceil(month / 3);

/**
 * The months a run covers (spec A 2.5, docs/adr/0064-allocation-covers-the-begun-months-of-a-year.md): `months` (deduplicated, ascending) wins over
 * `month`; with neither, the months of `year` that have begun at `now` in the service time zone (the
 * process TZ): all twelve of a past year, January to the current month of the current year, none of a
 * future year (nothing of it can be allocated yet, so the run is empty rather than refused).
 */
export function monthsOfRun(
  req: { year: number; month?: number | null; months?: number[] | null },
  now: Date,
): number[] {
  if (req.months?.length) return [...new Set(req.months)].sort((a, b) => a - b);
  if (req.month != null) return [req.month];
  const thisYear = now.getFullYear();
  const last = req.year < thisYear ? 12 : req.year === thisYear ? now.getMonth() + 1 : 0;
  return Array.from({ length: last }, (_, i) => i + 1);
}

/**
 * ratio: ⌊validUserCount × price × ratio ÷ (100 × validity months)⌋; fixed: validUserCount × fixedAmount.
 * Integer cents, in BigInt so no product is rounded on the way.
 */
export function monthlyTotal(
  validUserCount: number,
  model: Pick<CardModelForCalc, 'price' | 'validityMonths'>,
  settings: CalcSettings,
): bigint {
  const users = BigInt(validUserCount);
  if (settings.calcMode === 'fixed') return users * BigInt(settings.fixedAmount);
  return (users * BigInt(model.price) * BigInt(settings.ratio)) / (100n * BigInt(model.validityMonths));
}

/** The scope's batch and details from its aggregates; null when the total is beyond exact JSON numbers. */
export function allocateScope(
  scope: { year: number; month: number },
  model: CardModelForCalc,
  validUserCount: number,
  parks: readonly ParkCheckCount[],
  settings: CalcSettings,
): ScopeResult | null {
  const total = monthlyTotal(validUserCount, model, settings);
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  const amounts = largestRemainderSplit(
    total,
    parks.map((p) => ({ id: p.parkId, weight: p.checkNum })),
  );
  const checks = parks.reduce((sum, p) => sum + p.checkNum, 0);
  return {
    year: scope.year,
    month: scope.month,
    quarter: quarterOf(scope.month),
    cardModelId: model.id,
    cardModelName: model.name,
    cardModelPrice: model.price,
    validUserCount,
    totalDistributeAmount: Number(total),
    parkCount: parks.length,
    ratio: settings.ratio,
    calcMode: settings.calcMode,
    fixedAmount: settings.fixedAmount,
    details: parks.map((p, i) => ({
      parkId: p.parkId,
      parkName: p.parkName,
      merchantId: p.merchantId,
      shopId: p.shopId,
      checkNum: p.checkNum,
      distributePercent: percentText(p.checkNum, checks),
      distributeAmount: Number(amounts[i]),
    })),
  };
}
