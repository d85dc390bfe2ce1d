import { randomBytes } from 'node:crypto';
import { scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { advisoryLocks, loggedTransaction } from '../../platform/db/transaction.js';
import { conflict } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import {
  fixedAmountRequired,
  notAllocationEnabled,
  platformOnly,
  totalTooLarge,
  unknownCardModels,
} from './allocation.errors.js';
import type { CalcRequest, DistributeBatch, PreviewItem } from './allocation.schemas.js';
import * as batches from './batch.repository.js';
import * as calc from './calc.repository.js';
import { allocateScope, monthsOfRun, type CalcSettings, type ScopeResult } from './calculation.js';

const DEFAULT_RATIO = 80;

interface CalcPlan {
  year: number;
  months: number[];
  models: calc.CardModelForCalc[];
  settings: CalcSettings;
}

/** Start and end (exclusive) of a month in the service time zone (the process TZ). */
function monthBounds(year: number, month: number): [Date, Date] {
  return [new Date(year, month - 1, 1), new Date(year, month, 1)];
}

function settingsOf(req: CalcRequest): CalcSettings {
  if (req.calcMode === 'fixed') {
    if (req.fixedAmount == null) throw fixedAmountRequired();
    return { calcMode: 'fixed', ratio: null, fixedAmount: req.fixedAmount };
  }
  return { calcMode: 'ratio', ratio: req.ratio ?? DEFAULT_RATIO, fixedAmount: null };
}

/** The operation-log business id: the new batch ids, within the column's 64 characters (none: no id). */
function batchIds(list: DistributeBatch[]): string | null {
  if (list.length === 0) return null;
  const text = list.map((b) => b.id).join(',');
  return text.length <= 64 ? text : `${text.slice(0, text.lastIndexOf(',', 60))},…`;
}

/**
 * executeCalc and previewCalc (spec A 4.3, docs/domain.md §2). Both compute a month's scopes the same way
 * (`computeMonth`): two aggregates in the database and the split in integer cents.
 */
export function createCalcService(deps: { db: Db; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /** Validates the whole request even when it covers no month (a future year), then resolves it. */
  async function plan(req: CalcRequest): Promise<CalcPlan> {
    const months = monthsOfRun(req, now());
    const settings = settingsOf(req);
    const ids = req.cardModelIds?.length ? [...new Set(req.cardModelIds)] : null;
    const models = await calc.findCardModels(db, ids);
    if (ids) {
      const found = new Set(models.map((m) => m.id));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length) throw unknownCardModels(missing);
      const disabled = models.filter((m) => !m.allocationEnabled).map((m) => m.id);
      if (disabled.length) throw notAllocationEnabled(disabled);
    }
    return { year: req.year, months, models, settings };
  }

  /**
   * Every scope of one month: two aggregates for all its models, run side by side on two pooled
   * connections (PostgreSQL; PGlite runs them in turn), then the split of each in cents.
   */
  async function computeMonth(
    year: number,
    month: number,
    models: calc.CardModelForCalc[],
    settings: CalcSettings,
  ): Promise<ScopeResult[]> {
    if (models.length === 0) return [];
    const [start, end] = monthBounds(year, month);
    const ids = models.map((m) => m.id);
    const [validUsers, parks] = await Promise.all([
      calc.countValidUsers(db, ids, start, end),
      calc.parkCheckCounts(db, ids, start, end),
    ]);
    return models.map((model) => {
      const result = allocateScope(
        { year, month },
        model,
        validUsers.get(model.id) ?? 0,
        parks.get(model.id) ?? [],
        settings,
      );
      if (!result) throw totalTooLarge(model.name, year, month);
      return result;
    });
  }

  function assertPlatform(ctx: AuthedContext): void {
    if (scopeOf(ctx.account).kind !== 'platform') throw platformOnly();
  }

  return {
    /** Nothing saved; one element per (month, card model), months first. */
    async preview(ctx: AuthedContext, req: CalcRequest): Promise<PreviewItem[]> {
      assertPlatform(ctx);
      const p = await plan(req);
      const out: PreviewItem[] = [];
      for (const month of p.months) {
        for (const r of await computeMonth(p.year, month, p.models, p.settings)) {
          out.push({
            ...r,
            details: r.details.map(({ merchantId: _m, shopId: _s, distributePercent, ...d }) => ({
              ...d,
              distributePercent: Number(distributePercent),
            })),
          });
        }
      }
      return out;
    },

    /**
     * Computes as previewCalc does, then saves in one transaction holding every scope's lock (taken in
     * a fixed order, so runs of overlapping scopes cannot deadlock): each scope's previous batches,
     * details and ledger row are replaced. The aggregates read committed check and card rows, which the
     * lock does not guard, so they run before it: the transaction stays short (PGlite serves nothing
     * else while one is open) and concurrent runs of a scope still leave exactly one batch, the last.
     */
    async execute(ctx: AuthedContext, req: CalcRequest): Promise<DistributeBatch[]> {
      assertPlatform(ctx);
      const p = await plan(req);
      const results: ScopeResult[] = [];
      for (const month of p.months) results.push(...(await computeMonth(p.year, month, p.models, p.settings)));
      const cardModelIds = p.models.map((m) => m.id);
      try {
        return await loggedTransaction(
          db,
          ctx,
          async (trx) => {
            // One statement, keys in sorted order (the same for every run, so overlapping runs cannot
            // deadlock); deleteDistributeBatch takes the same key of its one scope.
            await advisoryLocks(
              trx,
              'allocation-scope',
              p.months.flatMap((month) => cardModelIds.map((id) => `${p.year}-${month}-${id}`)),
            );
            await batches.clearScopes(trx, { year: p.year, months: p.months, cardModelIds }, ctx.account.id);
            return batches.insertScopes(trx, results, {
              batchNo: (r) =>
                `DA${r.year}${String(r.month).padStart(2, '0')}-${r.cardModelId}-${randomBytes(4).toString('hex')}`,
              execTime: new Date(),
              execBy: ctx.account.id,
            });
          },
          batchIds,
        );
      } catch (err) {
        // Only a writer that bypassed the scope lock can get here; the index kept one batch per scope.
        if (isUniqueViolation(err, batches.BATCH_SCOPE_INDEX))
          throw conflict(
            'another allocation of the same month and card model was saved at the same time; run it again',
          );
        throw err;
      }
    },
  };
}

export type CalcService = ReturnType<typeof createCalcService>;
