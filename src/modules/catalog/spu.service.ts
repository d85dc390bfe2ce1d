import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { assertUnreferenced, findReferences } from '../../platform/db/references.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { assertMerchantEnabled } from '../merchant/index.js';
import * as err from './catalog.errors.js';
import * as repo from './spu.repository.js';
import type { Spu, SpuAdd, SpuFilter, SpuPageQuery, SpuUpdate } from './spu.schemas.js';

const TOURISM_CARD = 1;

function text(given: string | null | undefined, stored: string | null): string | null {
  if (given === undefined || given === null) return stored;
  return given.trim() === '' ? null : given.trim();
}

/** Resources (spec B 2.6, 4.6 addSpu; the rest is ours), owned by a shop and so by its merchant. */
export function createSpuService(deps: { db: Db }) {
  const { db } = deps;

  /**
   * The shop a resource is added to or moves to: it must exist (404), be the caller's (403) and its
   * merchant enabled (1_022_000_001: nothing new under a disabled merchant).
   */
  async function ownShop(ctx: AuthedContext, trx: Executor, shopId: number) {
    const shop = await repo.findShop(trx, shopId, true);
    if (!shop) throw err.shopNotFound();
    assertInScope(ctx.account, shop);
    assertMerchantEnabled(shop.merchant);
    return shop;
  }

  async function visible(ctx: AuthedContext, trx: Executor, id: number, lock?: 'update') {
    const spu = await repo.findSpu(trx, id, lock);
    if (!spu) throw err.spuNotFound();
    assertInScope(ctx.account, spu);
    return spu;
  }

  return {
    add(ctx: AuthedContext, input: SpuAdd): Promise<Spu> {
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const shop = await ownShop(ctx, trx, input.shopId);
          const id = await repo.insertSpu(
            trx,
            {
              name: input.name.trim(),
              shopId: shop.shopId,
              merchantId: shop.merchantId,
              resourceType: input.resourceType,
              costPrice: input.costPrice ?? null,
              stock: input.stock ?? null,
              status: input.status,
              description: text(input.description, null),
            },
            ctx.account.id,
          );
          return repo.toWire((await repo.findSpu(trx, id))!);
        },
        (s) => s.id,
      );
    },

    async update(ctx: AuthedContext, input: SpuUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, trx, input.id, 'update');
          let shop = { merchantId: current.merchantId, shopId: current.shopId };
          if (input.shopId !== current.shopId) {
            shop = await ownShop(ctx, trx, input.shopId);
            // SKUs, their gates and verifiers carry the shop too: a resource moves shop only without SKUs.
            const skus = await repo.countLivingSkus(trx, current.id);
            if (skus > 0) throw err.shopChangeWithSkus(skus);
          }
          if (current.resourceType === TOURISM_CARD && input.resourceType !== TOURISM_CARD) {
            // cardNum is for tourism-card goods only: such SKUs would be left invalid and uneditable.
            const [carded] = await findReferences(trx, current.id, [repo.CARD_NUM_SKUS]);
            if (carded) throw err.cardTypeChangeWithCardSkus(carded);
          }
          await repo.updateSpu(
            trx,
            current.id,
            {
              name: input.name.trim(),
              shopId: shop.shopId,
              merchantId: shop.merchantId,
              resourceType: input.resourceType,
              costPrice: input.costPrice ?? current.costPrice,
              stock: input.stock ?? current.stock,
              status: input.status,
              description: text(input.description, current.description),
            },
            ctx.account.id,
          );
        },
        () => input.id,
      );
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await visible(ctx, trx, id, 'update');
          await assertUnreferenced(trx, 'the resource', id, repo.SPU_REFERENCES);
          await repo.softDeleteSpu(trx, id, ctx.account.id);
        },
        () => id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<Spu> {
      return repo.toWire(await visible(ctx, db, id));
    },

    list(ctx: AuthedContext, filter: SpuFilter): Promise<Spu[]> {
      return repo.listSpus(db, filter, scopeOf(ctx.account));
    },

    page(ctx: AuthedContext, query: SpuPageQuery): Promise<Page<Spu>> {
      return repo.pageSpus(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type SpuService = ReturnType<typeof createSpuService>;
