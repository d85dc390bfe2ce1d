import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import { forbidden } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { cardModelNotFound, merchantNotFound, notYourModel, skuNotFound } from './card.errors.js';
import * as repo from './card-model.repository.js';
import type {
  CardModel,
  CardModelAdd,
  CardModelAllocationChange,
  CardModelFilter,
  CardModelPageQuery,
  CardModelStatusChange,
  CardModelUpdate,
  PriceHistory,
} from './card-model.schemas.js';
import { mayChangeModel } from './card-scope.js';
import { nonBlank, optionalText as optional } from '../../platform/text-input.js';
import { findMerchantState, assertMerchantEnabled } from '../merchant/index.js';

/**
 * Card models. Platform users make them for the platform (no merchant) or for a merchant; merchant
 * users make their own merchant's. A new price or validity keeps the old one in the price history and
 * applies from that moment: cards keep the expiry they were activated with, and allocations and
 * settlements already computed keep the amounts they stored.
 */
export function createCardModelService(deps: { db: Db; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /** A model the scope sees; with `change`, one it may change (403 otherwise). */
  async function reachable(
    ctx: AuthedContext,
    id: number,
    opts: { trx?: Trx; change?: boolean } = {},
  ): Promise<CardModel> {
    const exec = opts.trx ?? db;
    const scope = scopeOf(ctx.account);
    const model = await repo.findCardModel(exec, id, opts.trx !== undefined);
    if (!model) throw cardModelNotFound();
    if (opts.change && !mayChangeModel(scope, model)) throw notYourModel();
    if (!opts.change && !(await repo.modelVisibleTo(exec, id, scope)))
      throw forbidden('the card model belongs to another merchant');
    return model;
  }

  async function checkedSku(trx: Trx, skuId: number | null, merchantId: number | null): Promise<number | null> {
    if (skuId == null) return null;
    const sku = await repo.findCardSku(trx, skuId);
    if (!sku || (merchantId != null && sku.merchantId !== merchantId)) throw skuNotFound();
    return skuId;
  }

  async function ownerFor(trx: Trx, scope: Scope, merchantId: number | null | undefined): Promise<number | null> {
    if (scope.kind === 'shop') throw forbidden('shop users cannot add card models');
    const owner = scope.kind === 'merchant' ? scope.merchantId : (merchantId ?? null);
    if (scope.kind === 'merchant' && merchantId != null && merchantId !== owner)
      throw forbidden('you may only add card models of your own merchant');
    if (owner != null) {
      const merchant = await findMerchantState(trx, owner);
      if (!merchant) throw merchantNotFound();
      assertMerchantEnabled(merchant);
    }
    return owner;
  }

  return {
    reachable,

    async add(ctx: AuthedContext, input: CardModelAdd): Promise<CardModel> {
      const name = nonBlank('name', input.name);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const merchantId = await ownerFor(trx, scopeOf(ctx.account), input.merchantId);
          const id = await repo.insertCardModel(
            trx,
            {
              name,
              price: input.price,
              validityMonths: input.validityMonths ?? 12,
              allocationEnabled: input.allocationEnabled ?? false,
              skuId: await checkedSku(trx, input.skuId ?? null, merchantId),
              merchantId,
              remark: optional(input.remark, null),
            },
            ctx.account.id,
            now(),
          );
          return (await repo.findCardModel(trx, id))!;
        },
        (m) => m.id,
      );
    },

    async update(ctx: AuthedContext, input: CardModelUpdate): Promise<void> {
      const name = nonBlank('name', input.name);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await reachable(ctx, input.id, { trx, change: true });
          const skuId =
            input.skuId === undefined || input.skuId === null
              ? current.skuId
              : await checkedSku(trx, input.skuId, current.merchantId);
          await repo.updateCardModel(
            trx,
            current,
            {
              name,
              price: input.price,
              validityMonths: input.validityMonths ?? current.validityMonths,
              allocationEnabled: input.allocationEnabled ?? current.allocationEnabled,
              skuId,
              remark: optional(input.remark, current.remark),
            },
            ctx.account.id,
            now(),
          );
        },
        () => input.id,
      );
    },

    async setStatus(ctx: AuthedContext, input: CardModelStatusChange): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await reachable(ctx, input.id, { trx, change: true });
          await repo.setCardModelFlags(trx, input.id, { status: input.status }, ctx.account.id);
        },
        () => input.id,
      );
    },

    async setAllocation(ctx: AuthedContext, input: CardModelAllocationChange): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await reachable(ctx, input.id, { trx, change: true });
          await repo.setCardModelFlags(trx, input.id, { allocationEnabled: input.allocationEnabled }, ctx.account.id);
        },
        () => input.id,
      );
    },

    get: (ctx: AuthedContext, id: number): Promise<CardModel> => reachable(ctx, id),

    async priceHistory(ctx: AuthedContext, id: number): Promise<PriceHistory[]> {
      await reachable(ctx, id);
      return repo.priceHistory(db, id);
    },

    list: (ctx: AuthedContext, filter: CardModelFilter): Promise<CardModel[]> =>
      repo.listCardModels(db, filter, scopeOf(ctx.account)),

    page: (ctx: AuthedContext, query: CardModelPageQuery): Promise<Page<CardModel>> =>
      repo.pageCardModels(db, query, scopeOf(ctx.account), query),
  };
}

export type CardModelService = ReturnType<typeof createCardModelService>;
