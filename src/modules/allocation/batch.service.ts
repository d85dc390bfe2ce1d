import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { advisoryLock, loggedTransaction } from '../../platform/db/transaction.js';
import { readAhead } from '../../platform/export/prefetch.js';
import { XlsxExport } from '../../platform/export/xlsx-export.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { batchNotFound, batchOfAnother, platformOnly } from './allocation.errors.js';
import type { BatchPageQuery, DetailPageQuery, DistributeBatch, DistributeDetail } from './allocation.schemas.js';
import * as repo from './batch.repository.js';
import { detailExportColumns } from './detail-export.js';

/**
 * Batches and their details (spec A 4.3): platform users see everything; a merchant or shop user
 * sees the batches whose details name its parks, and only those details.
 */
export function createBatchService(deps: { db: Db }) {
  const { db } = deps;

  /** The living batch, refused with 404 when absent and 403 when none of its details is the caller's. */
  async function visible(ctx: AuthedContext, id: number): Promise<{ batch: DistributeBatch; scope: Scope }> {
    const scope = scopeOf(ctx.account);
    const batch = await repo.findBatch(db, id);
    if (!batch) throw batchNotFound();
    if (scope.kind !== 'platform' && !(await repo.batchVisible(db, id, scope))) throw batchOfAnother(scope.kind);
    return { batch, scope };
  }

  return {
    async get(ctx: AuthedContext, id: number): Promise<DistributeBatch> {
      return (await visible(ctx, id)).batch;
    },

    page(ctx: AuthedContext, query: BatchPageQuery): Promise<Page<DistributeBatch>> {
      return repo.pageBatches(db, query, scopeOf(ctx.account), query);
    },

    async detailPage(ctx: AuthedContext, query: DetailPageQuery): Promise<Page<DistributeDetail>> {
      const { scope } = await visible(ctx, query.batchId);
      return repo.pageDetails(db, query.batchId, query.keywords, scope, query);
    },

    /** Platform users only: the batch is marked deleted, its details and its month's ledger row go. */
    async remove(ctx: AuthedContext, id: number): Promise<void> {
      if (scopeOf(ctx.account).kind !== 'platform') throw platformOnly();
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const seen = await repo.findBatch(trx, id);
          if (!seen) throw batchNotFound();
          // The same lock as executeCalc, so a delete never interleaves with a run of the scope.
          await advisoryLock(trx, 'allocation-scope', `${seen.year}-${seen.month}-${seen.cardModelId}`);
          const batch = await repo.findBatch(trx, id, true);
          if (!batch) throw batchNotFound();
          await repo.deleteBatch(
            trx,
            { id, year: batch.year, month: batch.month, cardModelId: batch.cardModelId },
            ctx.account.id,
          );
        },
        () => id,
      );
    },

    /**
     * The batch's details as a streamed .xlsx with a total row. Once a platform user's file has gone
     * out whole, the batch moves from 1 or 2 to 3 (exported); a merchant's or shop's export holds only
     * its own parks' rows and leaves the status alone.
     */
    async exportDetails(ctx: AuthedContext, batchId: number): Promise<XlsxExport<repo.ExportRecord>> {
      const { batch, scope } = await visible(ctx, batchId);
      const period = `${batch.year}-${String(batch.month).padStart(2, '0')}`;
      return new XlsxExport<repo.ExportRecord>({
        fileName: `分配明细_${batch.batchNo}.xlsx`,
        // Excel refuses : \ / ? * [ ] in sheet names.
        sheetName: `${period} ${batch.cardModelName}`.replace(/[:\\/?*[\]]/g, ' '),
        columns: detailExportColumns(period, batch.cardModelName),
        batches: readAhead((after, limit) => repo.detailsAfter(db, batchId, scope, after?.id ?? null, limit)),
        totalRow: '合计',
        onComplete:
          scope.kind === 'platform'
            ? async () => {
                await repo.markExported(db, batchId, ctx.account.id);
              }
            : undefined,
      });
    },
  };
}

export type BatchService = ReturnType<typeof createBatchService>;
