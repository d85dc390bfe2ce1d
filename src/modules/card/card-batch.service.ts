import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import { XlsxExport } from '../../platform/export/xlsx-export.js';
import { forbidden } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { formatDateTime } from '../../platform/time.js';
import {
  batchNotFound,
  merchantNotFound,
  modelDisabled,
  notYourShop,
  numbersExhausted,
  onlyPlatformMovesCards,
  shopNotFound,
} from './card.errors.js';
import * as repo from './card-batch.repository.js';
import { findMerchantState, assertMerchantEnabled } from '../merchant/index.js';
import { optionalText as optional } from '../../platform/text-input.js';
import type { CardModelService } from './card-model.service.js';
import type { Batch, BatchGenerate, BatchPageQuery } from './card.schemas.js';
import { defaultPrefix, randomCardNumbers } from './card-number.js';
import { findShopOwner } from './card.repository.js';

/** Numbers per INSERT statement (one array parameter each). */
const INSERT_CHUNK = 20_000;
/** Rounds of fresh numbers for those another card already had, before giving up on the prefix. */
const MAX_ROUNDS = 8;

const STATUS_TEXT: Record<number, string> = { 1: '未绑定', 2: '已绑定', 3: '已停用', 4: '已过期' };
const MEDIUM_TEXT: Record<number, string> = { 1: '实体卡', 2: '电子卡' };

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const yyyymmdd = (d: Date) => `${d.getFullYear()}${pad(d.getMonth() + 1, 2)}${pad(d.getDate(), 2)}`;

/**
 * Card number batches: up to 100 000 cards of one model in one transaction, each number random with
 * a Luhn check digit and unique (the card_number index), held by the seller the batch names until
 * they are activated. The numbers come out as a streamed xlsx through the shared export helper.
 */
export function createCardBatchService(deps: { db: Db; models: CardModelService }) {
  const { db, models } = deps;

  /**
   * The merchant and shop holding the batch's cards: given, else the model's merchant. Within the
   * caller's scope, as activateCard's seller: only platform users hand cards to another merchant, and
   * a shop user's cards stay in its shop.
   */
  async function holder(
    trx: Trx,
    scope: Scope,
    input: BatchGenerate,
    modelMerchantId: number | null,
  ): Promise<{ merchantId: number | null; shopId: number | null }> {
    let merchantId = input.merchantId ?? null;
    const shopId = input.shopId ?? null;
    if (shopId != null) {
      const owner = await findShopOwner(trx, shopId);
      if (owner == null || (merchantId != null && owner !== merchantId)) throw shopNotFound();
      merchantId = owner;
    }
    merchantId ??= modelMerchantId;
    if (scope.kind !== 'platform' && merchantId !== scope.merchantId) throw onlyPlatformMovesCards();
    if (scope.kind === 'shop' && shopId !== scope.shopId) throw notYourShop();
    if (merchantId != null) {
      const merchant = await findMerchantState(trx, merchantId);
      if (!merchant) throw merchantNotFound();
      assertMerchantEnabled(merchant);
    }
    return { merchantId, shopId };
  }

  async function visibleBatch(ctx: AuthedContext, id: number): Promise<repo.BatchState> {
    const batch = await repo.findBatch(db, id);
    if (!batch) throw batchNotFound();
    const scope = scopeOf(ctx.account);
    const ok =
      scope.kind === 'platform' ||
      (scope.kind === 'shop'
        ? batch.shopId === scope.shopId
        : batch.merchantId === scope.merchantId || batch.modelMerchantId === scope.merchantId);
    if (!ok) throw forbidden('the card batch belongs to another merchant or shop');
    return batch;
  }

  return {
    async generate(ctx: AuthedContext, input: BatchGenerate): Promise<Batch> {
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const model = await models.reachable(ctx, input.cardModelId, { trx, change: true });
          if (model.status !== 1) throw modelDisabled(model.name);
          const place = await holder(trx, scopeOf(ctx.account), input, model.merchantId);
          const id = await repo.nextBatchId(trx);
          const batch: repo.NewBatch = {
            id,
            batchNo: `CB${yyyymmdd(new Date())}${pad(id, 6)}`,
            cardModelId: model.id,
            medium: input.medium,
            count: input.count,
            prefix: input.prefix ?? defaultPrefix(model.id),
            ...place,
            remark: optional(input.remark, null),
          };
          await repo.insertBatch(trx, batch, ctx.account.id);
          let made = 0;
          for (let round = 0; made < batch.count; round++) {
            if (round === MAX_ROUNDS) throw numbersExhausted(batch.prefix);
            const numbers = randomCardNumbers(batch.prefix, batch.count - made);
            for (let i = 0; i < numbers.length; i += INSERT_CHUNK) {
              made += await repo.insertCardNumbers(trx, batch, numbers.slice(i, i + INSERT_CHUNK), ctx.account.id);
            }
          }
          return repo.toBatchWire((await repo.findBatch(trx, id))!);
        },
        (b) => b.id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<Batch> {
      return repo.toBatchWire(await visibleBatch(ctx, id));
    },

    page: (ctx: AuthedContext, query: BatchPageQuery): Promise<Page<Batch>> =>
      repo.pageBatches(db, query, scopeOf(ctx.account), query),

    /** The batch's card numbers as a streamed xlsx, in the order they were made. */
    async export(ctx: AuthedContext, batchId: number): Promise<XlsxExport<repo.ExportRow>> {
      const batch = await visibleBatch(ctx, batchId);
      return new XlsxExport<repo.ExportRow>({
        fileName: `${batch.batchNo}.xlsx`,
        sheetName: batch.batchNo,
        columns: [
          { header: '卡号', width: 22, value: (r) => r.cardNumber },
          { header: '卡型', width: 20, value: () => batch.cardModelName },
          { header: '介质', width: 8, value: () => MEDIUM_TEXT[batch.medium] ?? String(batch.medium) },
          { header: '批次号', width: 20, value: () => batch.batchNo },
          { header: '状态', width: 8, value: (r) => STATUS_TEXT[r.status] ?? String(r.status) },
          { header: '激活时间', width: 20, value: (r) => formatDateTime(r.activeTime) },
        ],
        batches: (after, limit) => repo.batchCards(db, batchId, after?.id ?? 0, limit),
      });
    },
  };
}

export type CardBatchService = ReturnType<typeof createCardBatchService>;
