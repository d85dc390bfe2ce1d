import { scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { parseDateRange, type DateRange, dayText } from '../../platform/date-range.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { advisoryLock, loggedTransaction } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { pageWindow, type Page } from '../../platform/http/paging.js';
import type { Store } from '../../platform/store/store.js';
import { pageLiveChecks, type CheckDetail } from './check-detail.repository.js';
import { createOrdersFromEstimation } from './orders.js';
import { checkWatermark } from './settlement-calc.repository.js';
import { computeSettlementDetails, type ResourceDetail } from './settlement-calc.js';
import { toDetail } from './settlement-detail.repository.js';
import { periodText } from './settlement.repository.js';
import type { DetailResponse } from './settlement.schemas.js';
import {
  alreadySubmitted,
  cardModelNotFound,
  estimationDetailNotFound,
  estimationExpired,
  platformOnly,
  virtualDetailNotFound,
} from './estimation.errors.js';
import * as repo from './estimation.repository.js';
import type {
  CalcDetailQuery,
  CheckCalcDetailQuery,
  CheckDetailQuery,
  EstimationAdd,
  EstimationInfo,
  EstimationPageItem,
  EstimationPageQuery,
  SubmitEstimationResponse,
} from './estimation.schemas.js';

/** calcEstimationCard keeps its result this long (spec A 8). */
export const ESTIMATION_TTL_S = 2 * 60 * 60;

/** A computed detail with the id it took from the sequence of estimation_detail at calculation time. */
type HeldDetail = ResourceDetail & { id: number };

/**
 * The cached result of one calculation. Its details, in resource order, carry ids taken from the
 * sequence of estimation_detail (unique across calculations); submitting persists them with those ids.
 */
interface CachedEstimation {
  id: number;
  cardModelId: number;
  cardModelName: string;
  start: number;
  end: number;
  issueNum: number;
  profit: number;
  maxCheckId: number;
  details: HeldDetail[];
}

const entryKey = (id: number) => `estimation:calc:${id}`;
/** detail id → estimation id, so the check-record page finds a detail of a calculation not submitted */
const detailKey = (detailId: number) => `estimation:detail:${detailId}`;
/**
 * (card model, period) → the latest estimation id. Second precision, as the wire writes periods: a bare
 * end date (23:59:59.999) and "… 23:59:59" are one key.
 */
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const latestKey = (cardModelId: number, r: DateRange) =>
  `estimation:latest:${cardModelId}:${seconds(r.start)}:${seconds(r.end)}`;
/** What a calc-detail page answers when no calculation is held. */
const emptyPage = <T>(): Page<T> => ({ list: [], total: 0 });
const total = (details: ResourceDetail[]) => details.reduce((s, d) => s + d.settlementAmountActual, 0);
const checks = (details: ResourceDetail[]) => details.reduce((s, d) => s + d.checkNum, 0);

/**
 * Estimation sheets (spec A 4.4, docs/domain.md §3): a what-if of settlement computed by the shared
 * calculator, held 2 hours in the store (Redis when configured, so every instance sees it), and
 * submitted into a persisted sheet plus one settlement order per settlement merchant. Platform users.
 */
export function createEstimationService(deps: { db: Db; store: Store }) {
  const { db, store } = deps;

  function assertPlatform(ctx: AuthedContext): void {
    if (scopeOf(ctx.account).kind !== 'platform') throw platformOnly();
  }

  async function cached(id: number): Promise<CachedEstimation | null> {
    const text = await store.get(entryKey(id));
    if (!text) return null;
    const entry = JSON.parse(text) as CachedEstimation;
    // An entry written before details carried their ids counts as expired (calculate again).
    return entry.details.every((d) => typeof d.id === 'number') ? entry : null;
  }

  /** The latest calculation of the model and period still held, or null. */
  async function latest(cardModelId: number, period: string[]): Promise<CachedEstimation | null> {
    const range = parseDateRange('estimationPeriod', period, { required: true })!;
    const id = await store.get(latestKey(cardModelId, range));
    return id ? cached(Number(id)) : null;
  }

  const infoOf = (e: CachedEstimation, estimationNo: string | null): EstimationInfo => ({
    id: e.id,
    estimationNo,
    cardModelId: e.cardModelId,
    cardModelName: e.cardModelName,
    estimationPeriod: periodText(new Date(e.start), new Date(e.end)),
    totalAmount: total(e.details),
    profit: e.profit,
    issueNum: e.issueNum,
    checkNum: checks(e.details),
    sceneryNum: e.details.length,
    submitted: estimationNo !== null,
  });

  const detailOf = (e: CachedEstimation, d: HeldDetail): DetailResponse =>
    toDetail(d, e.cardModelName, periodText(new Date(e.start), new Date(e.end)));

  return {
    async calc(ctx: AuthedContext, req: EstimationAdd): Promise<EstimationInfo> {
      assertPlatform(ctx);
      const range = parseDateRange('estimationPeriod', req.estimationPeriod, { required: true })!;
      const model = await repo.findCardModel(db, req.cardModelId);
      if (!model) throw cardModelNotFound();
      const maxCheckId = await checkWatermark(db);
      const computed = await computeSettlementDetails(db, {
        cardModelId: model.id,
        start: range.start,
        end: range.end,
        issueNum: req.issueNum,
        profit: req.profit,
        maxCheckId,
      });
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const detailIds = await repo.nextDetailIds(trx, computed.length);
          const entry: CachedEstimation = {
            id: await repo.nextEstimationId(trx),
            cardModelId: model.id,
            cardModelName: model.name,
            start: range.start.getTime(),
            end: range.end.getTime(),
            issueNum: req.issueNum,
            profit: req.profit,
            maxCheckId,
            details: computed.map((d, i) => ({ ...d, id: detailIds[i] })),
          };
          await store.set(entryKey(entry.id), JSON.stringify(entry), ESTIMATION_TTL_S);
          await Promise.all(detailIds.map((d) => store.set(detailKey(d), String(entry.id), ESTIMATION_TTL_S)));
          await store.set(latestKey(model.id, range), String(entry.id), ESTIMATION_TTL_S);
          return infoOf(entry, null);
        },
        (info) => info.id,
      );
    },

    /** A submitted sheet, or a calculation still in the cache. */
    async get(ctx: AuthedContext, id: number): Promise<EstimationInfo> {
      assertPlatform(ctx);
      const sheet = await repo.findSheet(db, id);
      if (sheet) {
        return {
          id: sheet.id,
          estimationNo: sheet.estimationNo,
          cardModelId: sheet.cardModelId,
          cardModelName: sheet.cardModelName,
          estimationPeriod: periodText(sheet.startTime, sheet.endTime),
          totalAmount: sheet.totalAmount,
          profit: sheet.profit,
          issueNum: sheet.issueNum,
          checkNum: sheet.checkNum,
          sceneryNum: sheet.sceneryNum,
          submitted: true,
        };
      }
      const entry = await cached(id);
      if (!entry) throw estimationExpired();
      return infoOf(entry, null);
    },

    async issueNum(ctx: AuthedContext, cardModelId: number, period: string[]): Promise<number> {
      assertPlatform(ctx);
      const range = parseDateRange('estimationPeriod', period, { required: true })!;
      if (!(await repo.findCardModel(db, cardModelId))) throw cardModelNotFound();
      return repo.countIssued(db, cardModelId, range);
    },

    /**
     * The calc-detail pages read the held result and answer data only while it exists (spec A 4.4
     * rule 2, docs/errors.md): with nothing held for the (card model, period) they answer an empty page.
     */
    async calcDetailPage(ctx: AuthedContext, q: CalcDetailQuery): Promise<Page<DetailResponse>> {
      assertPlatform(ctx);
      const e = await latest(q.cardModelId, q.estimationPeriod);
      if (!e) return emptyPage();
      const { limit, offset } = pageWindow(q);
      return { list: e.details.slice(offset, offset + limit).map((d) => detailOf(e, d)), total: e.details.length };
    },

    async checkCalcDetailPage(ctx: AuthedContext, q: CheckCalcDetailQuery): Promise<Page<CheckDetail>> {
      assertPlatform(ctx);
      const e = await latest(q.cardModelId, q.estimationPeriod);
      if (!e) return emptyPage();
      // A calculation is held: an id outside it is a client error, not an expiry.
      const d = e.details.find((x) => x.id === q.id);
      if (!d) throw virtualDetailNotFound();
      return pageLiveChecks(
        db,
        {
          cardModelId: e.cardModelId,
          resourceId: d.resourceId,
          start: new Date(e.start),
          end: new Date(e.end),
          maxCheckId: e.maxCheckId,
        },
        null,
        q,
      );
    },

    async checkDetailPage(ctx: AuthedContext, q: CheckDetailQuery): Promise<Page<CheckDetail>> {
      assertPlatform(ctx);
      const detail = await repo.findDetail(db, q.estimationDetailId);
      if (detail) {
        const sheet = (await repo.findSheet(db, detail.sheetId))!;
        return pageLiveChecks(
          db,
          {
            cardModelId: sheet.cardModelId,
            resourceId: detail.resourceId,
            start: sheet.startTime,
            end: sheet.endTime,
            maxCheckId: sheet.checkWatermark,
          },
          q.keywords,
          q,
        );
      }
      // Not submitted (yet): the detail of the calculation still held, if any. Detail ids come from one
      // sequence, so an id names one detail only, held or persisted.
      const held = await store.get(detailKey(q.estimationDetailId));
      const e = held ? await cached(Number(held)) : null;
      const d = e?.details.find((x) => x.id === q.estimationDetailId);
      if (!e || !d) throw estimationDetailNotFound();
      return pageLiveChecks(
        db,
        {
          cardModelId: e.cardModelId,
          resourceId: d.resourceId,
          start: new Date(e.start),
          end: new Date(e.end),
          maxCheckId: e.maxCheckId,
        },
        q.keywords,
        q,
      );
    },

    async submit(ctx: AuthedContext, id: number): Promise<SubmitEstimationResponse> {
      assertPlatform(ctx);
      const done = await repo.findSheet(db, id);
      if (done) throw alreadySubmitted(id, done.estimationNo);
      const e = await cached(id);
      if (!e) throw estimationExpired();
      const estimationNo = `EST${dayText(new Date()).replaceAll('-', '')}${id}`;
      try {
        return await loggedTransaction(
          db,
          ctx,
          async (trx) => {
            await advisoryLock(trx, 'estimation-submit', id);
            const again = await repo.findSheet(trx, id);
            if (again) throw alreadySubmitted(id, again.estimationNo);
            const start = new Date(e.start);
            const end = new Date(e.end);
            await repo.insertSheet(
              trx,
              {
                id,
                estimationNo,
                cardModelId: e.cardModelId,
                cardModelName: e.cardModelName,
                start,
                end,
                issueNum: e.issueNum,
                profit: e.profit,
                totalAmount: total(e.details),
                checkNum: checks(e.details),
                maxCheckId: e.maxCheckId,
                details: e.details,
              },
              ctx.account.id,
            );
            const settlementIds = await createOrdersFromEstimation(trx, { ...e, start, end }, ctx.account.id);
            return { id, estimationNo, settlementIds };
          },
          (r) => r.id,
        );
      } catch (err) {
        if (isUniqueViolation(err, repo.SHEET_PKEY)) throw alreadySubmitted(id, estimationNo);
        throw err;
      }
    },

    page(ctx: AuthedContext, q: EstimationPageQuery): Promise<Page<EstimationPageItem>> {
      assertPlatform(ctx);
      return repo.pageSheets(db, q, parseDateRange('createdTimeRange', q.createdTimeRange), q);
    },
  };
}

export type EstimationService = ReturnType<typeof createEstimationService>;
