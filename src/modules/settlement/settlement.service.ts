import { SettlementStatus as S } from './settlement-status.js';
import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { parseDateRange } from '../../platform/date-range.js';
import { advisoryLock, loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import { readAhead } from '../../platform/export/prefetch.js';
import { XlsxExport } from '../../platform/export/xlsx-export.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { forbidden } from '../../platform/errors.js';
import { formatDateTime } from '../../platform/time.js';
import { largestRemainderSplit } from '../allocation/index.js';
import { settlementAccount } from '../merchant/index.js';
import * as checks from './check-detail.repository.js';
import { checkWatermark } from './settlement-calc.repository.js';
import { actualAmount, computeSettlementDetails, type ResourceDetail } from './settlement-calc.js';
import {
  detailNotFound,
  detailOfAnother,
  merchantOnly,
  negativeActual,
  negativeAfterAfresh,
  payAmountMismatch,
  platformOnly,
  settlementNotFound,
  tooManyDecimals,
  totalBeyondPayable,
  wrongStatus,
} from './settlement.errors.js';
import * as detailRepo from './settlement-detail.repository.js';
import * as repo from './settlement.repository.js';
import {
  MAX_PAYABLE_CENTS,
  type CalcRequest,
  type CheckDetailPageQuery,
  type ReviewRequest,
  type SettlementInfo,
  type SettlementPageQuery,
  type SettlementSummary,
} from './settlement.schemas.js';

type Actor = 'merchant' | 'platform';

interface Move {
  action: string;
  /** past participle for the 409 message: "cannot be confirmed" */
  verb: string;
  who: Actor;
  from: readonly number[];
  /** null keeps the status (afresh) */
  to: number | null;
  remark?: string | null;
  set?: repo.MoveValues;
  /** runs inside the transaction once the order is in its new state */
  then?: (trx: Trx, row: repo.SettlementRecord) => Promise<void>;
}

const zeroDetail = (d: detailRepo.SettlementDetailRecord): ResourceDetail => ({
  resourceId: d.resourceId,
  sceneryName: d.sceneryName,
  merchantId: d.merchantId ?? 0,
  shopId: d.shopId ?? 0,
  settlementWay: d.settlementWay,
  checkNum: 0,
  ticketPriceInfo: [],
  estimationFactor: 1,
  settlementAmount: 0,
  increaseAmount: 0,
  decreaseAmount: 0,
  settlementAmountActual: 0,
});

/**
 * Settlement orders (spec B 4.3, docs/domain.md §3): the status machine 1 → 2 → 3 → 4 → 5 → 6, review's
 * reject 3 → 1, void 1–5 → 9, afresh in 1–3, delete. Every move is one conditional UPDATE … WHERE
 * status IN (from) in a transaction with its settlement-log row and operation-log row: of two racing
 * moves exactly one wins, the other answers 409 naming the status it found.
 */
export function createSettlementService(deps: { db: Db }) {
  const { db } = deps;

  /** The order, 404 when absent, 403 when outside the caller's merchant or shop. */
  async function visible(
    ctx: AuthedContext,
    id: number,
    ex: Trx | Db = db,
  ): Promise<{ row: repo.SettlementRecord; scope: Scope }> {
    const scope = scopeOf(ctx.account);
    const row = await repo.findSettlement(ex, id);
    if (!row) throw settlementNotFound();
    if (scope.kind !== 'platform' && !(await repo.visibleTo(ex, id, scope))) {
      throw forbidden(
        scope.kind === 'shop' && row.settlementMerchantId === scope.merchantId
          ? 'the record belongs to another shop'
          : 'the record belongs to another merchant',
      );
    }
    return { row, scope };
  }

  function authorize(scope: Scope, who: Actor, verb: string): void {
    if (who === 'platform' && scope.kind !== 'platform') throw platformOnly(verb);
    if (who === 'merchant' && scope.kind !== 'merchant') throw merchantOnly(verb);
  }

  async function move(ctx: AuthedContext, id: number, m: Move): Promise<void> {
    const by = ctx.account.id;
    await loggedTransaction(
      db,
      ctx,
      async (trx) => {
        const { row, scope } = await visible(ctx, id, trx);
        authorize(scope, m.who, m.action);
        const moved = await repo.moveStatus(trx, id, m.from, m.to, m.set ?? {}, by);
        if (!moved) {
          const now = await repo.findSettlement(trx, id);
          if (!now) throw settlementNotFound();
          throw wrongStatus(now.settlementStatus, m.verb);
        }
        if (m.then) await m.then(trx, moved);
        const from = m.from.length === 1 ? m.from[0] : row.settlementStatus;
        await repo.insertLog(
          trx,
          { id, settlementNo: moved.settlementNo },
          m.action,
          from,
          m.to ?? moved.settlementStatus,
          m.remark ?? null,
          by,
        );
      },
      () => id,
    );
  }

  async function info(row: repo.SettlementRecord, finance: SettlementInfo['merchantFinance']): Promise<SettlementInfo> {
    const summary = repo.toSummary(row);
    const rows = await detailRepo.detailRows(db, row.id);
    const wire = rows.map((d) => detailRepo.toDetail(d, row.cardModelName, summary.settlementPeriod));
    const byWay: Record<string, number> = {};
    for (const d of wire) byWay[d.settlementWay] = (byWay[d.settlementWay] ?? 0) + d.settlementAmountActual;
    return {
      ...summary,
      merchantFinance: finance,
      statisticData: {
        sceneryNum: wire.length,
        paidAmount: summary.paidAmount,
        unpaidAmount: summary.totalAmount - summary.paidAmount,
        amountBySettlementWay: byWay,
      },
      details: wire,
    };
  }

  /** Recomputes an order's details from the current checks and rules, keeping the platform's adjustments. */
  async function recompute(trx: Trx, row: repo.SettlementRecord, by: number): Promise<void> {
    const maxCheckId = await checkWatermark(trx);
    const computed = await computeSettlementDetails(trx, {
      cardModelId: row.cardModelId,
      start: row.startTime,
      end: row.endTime,
      issueNum: row.issueNum,
      profit: row.profit,
      maxCheckId,
    });
    const own = computed.filter((d) => d.merchantId === row.settlementMerchantId);
    const mine = new Map((await withinPool(trx, row, own)).map((d) => [d.resourceId, d]));
    const existing = await detailRepo.detailRows(trx, row.id);
    await checks.deleteSnapshots(
      trx,
      existing.map((d) => d.id),
    );
    const detailIds = new Map<number, number>();
    for (const d of existing) {
      const fresh = mine.get(d.resourceId) ?? zeroDetail(d);
      mine.delete(d.resourceId);
      const actual = actualAmount(fresh.settlementAmount, d.estimationFactor, d.increaseAmount, d.decreaseAmount);
      if (actual < 0) throw negativeAfterAfresh(d.id, fresh.settlementAmount, d.decreaseAmount);
      await detailRepo.updateDetailFigures(trx, d.id, fresh, actual, by);
      detailIds.set(d.resourceId, d.id);
    }
    // Resources the merchant gained since (a new rule) join the order.
    for (const [resourceId, id] of await detailRepo.insertDetails(trx, row.id, [...mine.values()], by))
      detailIds.set(resourceId, id);
    for (const [resourceId, detailId] of detailIds) {
      await checks.snapshotChecks(trx, row.id, detailId, {
        cardModelId: row.cardModelId,
        resourceId,
        start: row.startTime,
        end: row.endTime,
        maxCheckId,
      });
    }
    const total = await repo.refreshTotals(trx, row.id, by);
    if (total > MAX_PAYABLE_CENTS) throw totalBeyondPayable(null, total);
  }

  /**
   * The orders of one estimation share its unified pool (way 4), and the others may have been paid
   * already: a recalculated order's way-4 details take at most what the other living orders leave of
   * the pool (split by their check counts when less than they would get), so the pool's orders never
   * add up to more than issueNum × profit. Serialised per estimation, as two orders may be recalculated at once.
   */
  async function withinPool(
    trx: Trx,
    row: repo.SettlementRecord,
    details: ResourceDetail[],
  ): Promise<ResourceDetail[]> {
    const way4 = details.filter((d) => d.settlementWay === 4);
    if (row.estimationId === null || way4.length === 0) return details;
    await advisoryLock(trx, 'settlement-pool', row.estimationId);
    const held = await detailRepo.way4HeldByOthers(trx, row.estimationId, row.id);
    const pool = BigInt(row.issueNum) * BigInt(row.profit);
    const left = pool > held ? pool - held : 0n;
    if (way4.reduce((sum, d) => sum + BigInt(d.settlementAmount), 0n) <= left) return details;
    const shares = largestRemainderSplit(
      left,
      way4.map((d) => ({ id: d.resourceId, weight: d.checkNum })),
    );
    const capped = new Map(way4.map((d, i) => [d.resourceId, Number(shares[i])]));
    return details.map((d) => {
      const amount = capped.get(d.resourceId);
      return amount === undefined ? d : { ...d, settlementAmount: amount, settlementAmountActual: amount };
    });
  }

  async function detailOf(ctx: AuthedContext, detailId: number) {
    const detail = await detailRepo.findDetail(db, detailId);
    if (!detail) throw detailNotFound();
    const { row } = await visible(ctx, detail.settlementId);
    return { detail, row };
  }

  return {
    async get(ctx: AuthedContext, id: number): Promise<SettlementInfo> {
      const { row } = await visible(ctx, id);
      return info(row, null);
    },

    /** merchantFinance by status (spec B 4.3 rule 3): pending invoice → the session user's merchant; 5, 6 → the settlement merchant's; else none. */
    async getInvoice(ctx: AuthedContext, id: number): Promise<SettlementInfo> {
      const { row, scope } = await visible(ctx, id);
      let financeMerchant: number | null = null;
      if (row.settlementStatus === S.PENDING_INVOICE)
        financeMerchant = scope.kind === 'platform' ? row.settlementMerchantId : scope.merchantId;
      else if (row.settlementStatus === S.PENDING_PAYMENT || row.settlementStatus === S.COMPLETED)
        financeMerchant = row.settlementMerchantId;
      return info(row, financeMerchant === null ? null : await settlementAccount(db, financeMerchant));
    },

    page(ctx: AuthedContext, q: SettlementPageQuery): Promise<Page<SettlementSummary>> {
      const period = parseDateRange('settlementPeriod', q.settlementPeriod);
      return repo.pageSettlements(db, q, period, scopeOf(ctx.account), q);
    },

    confirm: (ctx: AuthedContext, id: number, remark: string | null | undefined) =>
      move(ctx, id, {
        action: 'confirm',
        verb: 'confirmed',
        who: 'merchant',
        from: [S.PENDING_SPOT_CHECK],
        to: S.PENDING_CALCULATION,
        remark: remark ?? null,
        set: { remark: remark ?? null },
      }),

    calc: (ctx: AuthedContext, req: CalcRequest) =>
      move(ctx, req.id, {
        action: 'calc',
        verb: 'calculated',
        who: 'platform',
        from: [S.PENDING_CALCULATION],
        to: S.PENDING_REVIEW,
        then: async (trx, row) => {
          if (!req.details?.length) return;
          const rows = new Map((await detailRepo.detailRows(trx, row.id)).map((d) => [d.id, d]));
          for (const a of req.details) {
            const d = rows.get(a.id);
            if (!d) throw detailOfAnother('details');
            const factor = a.estimationFactor ?? d.estimationFactor;
            if (Math.abs(factor * 10_000 - Math.round(factor * 10_000)) > 1e-6)
              throw tooManyDecimals('estimationFactor');
            const increase = a.increaseAmount ?? d.increaseAmount;
            const decrease = a.decreaseAmount ?? d.decreaseAmount;
            const actual = actualAmount(d.settlementAmount, factor.toFixed(4), increase, decrease);
            if (actual < 0) throw negativeActual(a.id);
            await detailRepo.adjustDetail(trx, a.id, { factor, increase, decrease, actual }, ctx.account.id);
          }
          const total = await repo.refreshTotals(trx, row.id, ctx.account.id);
          if (total > MAX_PAYABLE_CENTS) throw totalBeyondPayable('details', total);
        },
      }),

    review: (ctx: AuthedContext, req: ReviewRequest) =>
      move(ctx, req.id, {
        action: req.pass ? 'review-pass' : 'review-reject',
        verb: 'reviewed',
        who: 'platform',
        from: [S.PENDING_REVIEW],
        to: req.pass ? S.PENDING_INVOICE : S.PENDING_SPOT_CHECK,
        remark: req.remark ?? null,
        set: { remark: req.remark ?? null },
      }),

    uploadInvoice: (ctx: AuthedContext, id: number, files: string) =>
      move(ctx, id, {
        action: 'invoice',
        verb: 'given an invoice',
        who: 'merchant',
        from: [S.PENDING_INVOICE],
        to: S.PENDING_PAYMENT,
        remark: files,
        set: { settlementFiles: files.trim() },
      }),

    async pay(ctx: AuthedContext, id: number, amount: number, voucher: string | null | undefined): Promise<void> {
      await move(ctx, id, {
        action: 'pay',
        verb: 'paid',
        who: 'platform',
        from: [S.PENDING_PAYMENT],
        to: S.COMPLETED,
        remark: voucher ?? null,
        then: async (trx, row) => {
          const due = row.totalAmount - row.paidAmount;
          if (amount !== due) throw payAmountMismatch(due);
          await repo.insertPayment(trx, id, amount, voucher ?? null, ctx.account.id);
          await repo.moveStatus(
            trx,
            id,
            [S.COMPLETED],
            S.COMPLETED,
            { paidAmount: row.paidAmount + amount },
            ctx.account.id,
          );
        },
      });
    },

    voidOrder: (ctx: AuthedContext, id: number, reason: string) =>
      move(ctx, id, {
        action: 'void',
        verb: 'voided',
        who: 'platform',
        from: [S.PENDING_SPOT_CHECK, S.PENDING_CALCULATION, S.PENDING_REVIEW, S.PENDING_INVOICE, S.PENDING_PAYMENT],
        to: S.VOIDED,
        remark: reason,
        set: { remark: reason },
      }),

    async afresh(ctx: AuthedContext, settlementId: number, detailId: number): Promise<void> {
      await move(ctx, settlementId, {
        action: 'afresh',
        verb: 'recalculated',
        who: 'platform',
        from: [S.PENDING_SPOT_CHECK, S.PENDING_CALCULATION, S.PENDING_REVIEW],
        to: null,
        set: { afreshBy: ctx.account.id, afreshTime: new Date() },
        then: async (trx, row) => {
          const detail = await detailRepo.findDetail(trx, detailId);
          if (!detail) throw detailNotFound();
          if (detail.settlementId !== settlementId) throw detailOfAnother('settlementDetailId');
          await recompute(trx, row, ctx.account.id);
        },
      });
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const { row, scope } = await visible(ctx, id, trx);
          authorize(scope, 'platform', 'delete');
          if (!(await repo.deleteSettlement(trx, id))) throw settlementNotFound();
          await repo.insertLog(
            trx,
            { id, settlementNo: row.settlementNo },
            'delete',
            row.settlementStatus,
            null,
            null,
            ctx.account.id,
          );
        },
        () => id,
      );
    },

    async checkDetailPage(ctx: AuthedContext, q: CheckDetailPageQuery): Promise<Page<checks.CheckDetail>> {
      await detailOf(ctx, q.settlementDetailId);
      return checks.pageSnapshots(db, q.settlementDetailId, q.keywords, q);
    },

    async exportCheckDetails(
      ctx: AuthedContext,
      detailId: number,
      keywords: string | null | undefined,
    ): Promise<XlsxExport<checks.CheckSnapshot>> {
      const { detail, row } = await detailOf(ctx, detailId);
      return new XlsxExport<checks.CheckSnapshot>({
        fileName: `结算核销明细_${row.settlementNo}_${detail.resourceId}.xlsx`,
        sheetName: detail.sceneryName.replace(/[:\\/?*[\]]/g, ' ').slice(0, 31),
        columns: [
          { header: '卡型', kind: 'text', width: 18, value: (r) => r.cardModelName },
          { header: '景区', kind: 'text', width: 24, value: (r) => r.sceneryName },
          { header: '游客姓名', kind: 'text', width: 12, value: (r) => r.touristName },
          { header: '游客电话', kind: 'text', width: 14, value: (r) => r.touristPhone },
          { header: '卡号', kind: 'text', width: 20, value: (r) => r.cardNumber },
          { header: '核销时间', kind: 'text', width: 20, value: (r) => formatDateTime(r.checkTime) },
          { header: '核销员ID', kind: 'integer', width: 10, value: (r) => r.checkerId },
          { header: '核销员', kind: 'text', width: 12, value: (r) => r.checkerName },
          { header: '核销次数', kind: 'integer', width: 10, value: (r) => r.consumeNum, total: true },
        ],
        batches: readAhead((after, limit) => checks.snapshotsAfter(db, detailId, keywords, after?.id ?? null, limit)),
        totalRow: '合计',
      });
    },
  };
}

export type SettlementService = ReturnType<typeof createSettlementService>;
