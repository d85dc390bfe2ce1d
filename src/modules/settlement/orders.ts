import type { Trx } from '../../platform/db/transaction.js';
import { snapshotChecks } from './check-detail.repository.js';
import type { ResourceDetail } from './settlement-calc.js';
import * as repo from './settlement.repository.js';

/** What an estimation hands to settlement when it is submitted. */
export interface EstimationForOrders {
  id: number;
  cardModelId: number;
  cardModelName: string;
  start: Date;
  end: Date;
  issueNum: number;
  profit: number;
  maxCheckId: number;
  details: ResourceDetail[];
}

/**
 * One settlement order per settlement merchant (the merchant owning the resources), status 1, with
 * its details and the snapshot of the checks each detail was computed from, and a log row each.
 * Runs inside the caller's transaction. Answers the new order ids.
 */
export async function createOrdersFromEstimation(trx: Trx, e: EstimationForOrders, by: number): Promise<number[]> {
  const byMerchant = new Map<number, ResourceDetail[]>();
  for (const d of e.details) {
    const list = byMerchant.get(d.merchantId) ?? [];
    list.push(d);
    byMerchant.set(d.merchantId, list);
  }
  const names = await repo.merchantNames(trx, [...byMerchant.keys()]);
  const ids: number[] = [];
  for (const [merchantId, details] of [...byMerchant].sort((a, b) => a[0] - b[0])) {
    const settlementNo = `ST${e.id}-${merchantId}`;
    const { id, detailIds } = await repo.insertSettlement(
      trx,
      {
        settlementNo,
        estimationId: e.id,
        cardModelId: e.cardModelId,
        cardModelName: e.cardModelName,
        start: e.start,
        end: e.end,
        issueNum: e.issueNum,
        profit: e.profit,
        merchantId,
        merchantName: names.get(merchantId) ?? String(merchantId),
      },
      details,
      by,
    );
    for (const [resourceId, detailId] of detailIds) {
      await snapshotChecks(trx, id, detailId, {
        cardModelId: e.cardModelId,
        resourceId,
        start: e.start,
        end: e.end,
        maxCheckId: e.maxCheckId,
      });
    }
    await repo.insertLog(trx, { id, settlementNo }, 'create', null, 1, `from estimation ${e.id}`, by);
    ids.push(id);
  }
  return ids;
}
