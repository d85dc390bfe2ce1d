import type { TicketPriceRow } from '../../db/tables/settlement.js';
import type { Executor } from '../../platform/db/executor.js';
import { dayText } from '../../platform/date-range.js';
import { largestRemainderSplit } from '../allocation/index.js';
import * as repo from './settlement-calc.repository.js';
import { amountTooLarge } from './settlement.errors.js';

/**
 * The one calculation of what a card model's resources are owed for a period (docs/domain.md §3), used by
 * estimation (calcEstimationCard) and settlement (afreshSettlementCard) alike. The database
 * aggregates the checks; this file only combines the per-resource figures in integer cents:
 *   way 1: Σ over dated price periods of round(price × checks × factor);
 *   way 2: the rule's buyout_amount;
 *   way 3: round(issueNum × profit × share_percent ÷ 100);
 *   way 4: the pool issueNum × profit split among the way-4 resources by checks, largest remainder;
 *   way 5: Σ of the park's allocation details for the model over the months the period covers.
 * estimationFactor 1, increase and decrease 0: settlementAmountActual = settlementAmount until the
 * platform adjusts a settlement detail (actualAmount).
 */

export interface CalcRequest {
  cardModelId: number;
  start: Date;
  end: Date;
  issueNum: number;
  /** per-card profit, cents */
  profit: number;
  maxCheckId: number;
}

export interface ResourceDetail {
  resourceId: number;
  sceneryName: string;
  merchantId: number;
  shopId: number;
  settlementWay: number;
  checkNum: number;
  ticketPriceInfo: TicketPriceRow[];
  estimationFactor: number;
  settlementAmount: number;
  increaseAmount: number;
  decreaseAmount: number;
  settlementAmountActual: number;
}

const SCALE = 10_000n;

/** A decimal text with at most 4 decimals ("12.5", "0.3333") as an integer count of 1/10 000. */
export function decimalUnits(text: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{0,4})\d*)?$/.exec(text.trim());
  if (!m) throw new RangeError(`not a decimal: ${text}`);
  const units = BigInt(m[2]) * SCALE + BigInt((m[3] ?? '').padEnd(4, '0') || '0');
  return m[1] === '-' ? -units : units;
}

/** round(n ÷ d) half away from zero, for d > 0. */
function roundDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  if (2n * (r < 0n ? -r : r) >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

/** A sum in cents as a number, refused (1_006_000_001) when JSON could not carry it exactly. */
function safe(v: bigint, _what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw amountTooLarge();
  return Number(v);
}

/** Way 3: round(issueNum × profit × percent ÷ 100), exact. */
export function revenueShare(issueNum: number, profit: number, sharePercent: string | null): number {
  if (sharePercent === null) return 0;
  return safe(
    roundDiv(BigInt(issueNum) * BigInt(profit) * decimalUnits(sharePercent), 100n * SCALE),
    'the revenue share',
  );
}

/** round(amount × factor) + increase − decrease: the amount a detail settles for. */
export function actualAmount(amount: number, factor: number | string, increase: number, decrease: number): number {
  const units = decimalUnits(typeof factor === 'number' ? factor.toFixed(4) : factor);
  return safe(roundDiv(BigInt(amount) * units, SCALE) + BigInt(increase) - BigInt(decrease), 'the settlement amount');
}

/** The month index (year × 12 + month − 1) of a date in the service time zone. */
const monthIndex = (d: Date) => d.getFullYear() * 12 + d.getMonth();

/** Every resource of the card model's rules with what it is owed for the period, by resource id. */
export async function computeSettlementDetails(db: Executor, req: CalcRequest): Promise<ResourceDetail[]> {
  const period: repo.CalcPeriod = {
    cardModelId: req.cardModelId,
    start: req.start,
    end: req.end,
    maxCheckId: req.maxCheckId,
  };
  const rules = await repo.rulesOf(db, req.cardModelId);
  if (rules.length === 0) return [];
  const ids = rules.map((r) => r.resourceId);
  const parks = rules.filter((r) => r.settlementWay === 5).map((r) => r.resourceId);
  const [counts, segments, allocations] = await Promise.all([
    repo.checkCounts(db, period, ids),
    rules.some((r) => r.settlementWay === 1)
      ? repo.priceSegments(db, period, dayText(req.start), dayText(req.end))
      : Promise.resolve([]),
    repo.allocationSums(db, req.cardModelId, monthIndex(req.start), monthIndex(req.end), parks),
  ]);

  const way4 = rules.filter((r) => r.settlementWay === 4);
  const pool = BigInt(req.issueNum) * BigInt(req.profit);
  const shares = largestRemainderSplit(
    pool,
    way4.map((r) => ({ id: r.resourceId, weight: counts.get(r.resourceId) ?? 0 })),
  );
  const way4Share = new Map(way4.map((r, i) => [r.resourceId, safe(shares[i], 'the unified pool')]));

  const details = rules.map((rule): ResourceDetail => {
    const checkNum = counts.get(rule.resourceId) ?? 0;
    let ticketPriceInfo: TicketPriceRow[] = [];
    let amount = 0;
    switch (rule.settlementWay) {
      case 1:
        ticketPriceInfo = segments
          .filter((s) => s.resourceId === rule.resourceId)
          .map((s) => ({
            startDate: `${s.startDate} 00:00:00`,
            endDate: `${s.endDate} 23:59:59`,
            price: s.price,
            checkNum: s.checkNum,
            ticketTotalAmount: s.ticketTotalAmount,
            settlementFactor: Number(s.settlementFactor),
            settlementAmount: s.settlementAmount,
          }));
        amount = ticketPriceInfo.reduce((sum, s) => sum + s.settlementAmount, 0);
        break;
      case 2:
        amount = rule.buyoutAmount ?? 0;
        break;
      case 3:
        amount = revenueShare(req.issueNum, req.profit, rule.sharePercent);
        break;
      case 4:
        amount = way4Share.get(rule.resourceId) ?? 0;
        break;
      case 5:
        amount = allocations.get(rule.resourceId) ?? 0;
        break;
    }
    return {
      resourceId: rule.resourceId,
      sceneryName: rule.sceneryName,
      merchantId: rule.merchantId,
      shopId: rule.shopId,
      settlementWay: rule.settlementWay,
      checkNum,
      ticketPriceInfo,
      estimationFactor: 1,
      settlementAmount: amount,
      increaseAmount: 0,
      decreaseAmount: 0,
      settlementAmountActual: amount,
    };
  });
  // The totals of an estimation and of its orders must be exact too.
  safe(
    details.reduce((sum, d) => sum + BigInt(d.settlementAmountActual), 0n),
    'the total',
  );
  return details;
}
