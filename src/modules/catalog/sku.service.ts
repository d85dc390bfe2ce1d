import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { assertUnreferenced } from '../../platform/db/references.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { assertMerchantEnabled } from '../merchant/index.js';
import * as err from './catalog.errors.js';
import * as repo from './sku.repository.js';
import type { Sku, SkuAdd, SkuFilter, SkuPageQuery, SkuUpdate } from './sku.schemas.js';
import { findSpu, type OwnedSpu } from './spu.repository.js';

const TOURISM_CARD = 1;

function checkDecimals(field: string, value: number | null | undefined): void {
  if (value == null) return;
  const scaled = value * 10_000;
  if (Math.abs(scaled - Math.round(scaled)) > 1e-6) throw err.tooManyDecimals(field);
}

/** The entrance names of a request, trimmed; the same name twice is refused. */
function entranceNames(list: ReadonlyArray<{ entranceName: string }>): string[] {
  const seen = new Set<string>();
  return list.map((e) => {
    const name = e.entranceName.trim();
    if (seen.has(name)) throw err.duplicateEntrance(name);
    seen.add(name);
    return name;
  });
}

/** SKUs (spec B 2.6, 4.6 addSku; the rest is ours): what is sold of a resource, with the gates it is checked at. */
export function createSkuService(deps: { db: Db }) {
  const { db } = deps;

  /** The resource a SKU sells, held against a concurrent delete: it must exist (404) and be the caller's (403). */
  async function goods(ctx: AuthedContext, trx: Executor, goodsId: number): Promise<OwnedSpu> {
    const spu = await findSpu(trx, goodsId, 'share');
    if (!spu) throw err.goodsNotFound();
    assertInScope(ctx.account, spu);
    return spu;
  }

  async function visible(ctx: AuthedContext, trx: Executor, id: number, forUpdate = false) {
    const sku = await repo.findSku(trx, id, forUpdate);
    if (!sku) throw err.skuNotFound();
    assertInScope(ctx.account, sku);
    return sku;
  }

  function checkValues(
    spu: OwnedSpu,
    v: { cardNum: number | null; useScoreRate: number | null; addScoreRate: number | null },
  ): void {
    if (v.cardNum !== null && spu.resourceType !== TOURISM_CARD) throw err.cardNumOnlyForCards();
    checkDecimals('useScoreRate', v.useScoreRate);
    checkDecimals('addScoreRate', v.addScoreRate);
  }

  /** Makes the SKU's living entrances what the request lists: listed ids kept (renamed), new names added, the rest removed. */
  async function reconcileEntrances(
    trx: Executor,
    owner: repo.EntranceOwner,
    given: NonNullable<SkuUpdate['skuEntranceList']>,
    by: number,
  ) {
    const names = entranceNames(given);
    const existing = (await repo.entrancesOf(trx, [owner.skuId])).get(owner.skuId) ?? [];
    const byId = new Map(existing.map((e) => [e.id, e]));
    const kept = new Set<number>();
    given.forEach((e, i) => {
      if (e.id == null) return;
      if (!byId.has(e.id) || kept.has(e.id)) throw err.foreignEntrance(i, e.id);
      kept.add(e.id);
    });
    for (const gone of existing.filter((e) => !kept.has(e.id))) {
      await assertUnreferenced(trx, `the entrance "${gone.entranceName}"`, gone.id, repo.ENTRANCE_REFERENCES);
      await repo.softDeleteEntrance(trx, gone.id, by);
    }
    for (const [i, e] of given.entries()) {
      if (e.id != null) await repo.updateEntrance(trx, e.id, names[i], owner, by);
    }
    await repo.insertEntrances(
      trx,
      owner,
      names.filter((_, i) => given[i].id == null),
      by,
    );
  }

  return {
    add(ctx: AuthedContext, input: SkuAdd): Promise<Sku> {
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const spu = await goods(ctx, trx, input.goodsId);
          assertMerchantEnabled(spu.merchant);
          const v: repo.SkuValues = {
            goodsId: spu.id,
            merchantId: spu.merchantId,
            shopId: spu.shopId,
            skuName: input.skuName.trim(),
            goodsChannelId: input.goodsChannelId ?? null,
            showPrice: input.showPrice ?? null,
            buyPrice: input.buyPrice ?? null,
            costPrice: input.costPrice ?? null,
            buyCount: input.buyCount ?? null,
            stock: input.stock ?? null,
            isLogistic: input.isLogistic ?? null,
            carriageId: input.carriageId ?? null,
            mold: input.mold ?? null,
            isDistributes: input.isDistributes ?? null,
            commission: input.commission ?? null,
            isPreferential: input.isPreferential ?? null,
            isUseScore: input.isUseScore ?? null,
            isAddScore: input.isAddScore ?? null,
            useScoreRate: input.useScoreRate ?? null,
            addScoreRate: input.addScoreRate ?? null,
            cardNum: input.cardNum ?? null,
            status: input.status ?? 1,
          };
          checkValues(spu, v);
          const names = entranceNames(input.skuEntranceList ?? []);
          const id = await repo.insertSku(trx, v, ctx.account.id);
          await repo.insertEntrances(
            trx,
            { skuId: id, merchantId: spu.merchantId, shopId: spu.shopId, goodsId: spu.id },
            names,
            ctx.account.id,
          );
          return repo.skuWithEntrances(trx, (await repo.findSku(trx, id))!);
        },
        (s) => s.id,
      );
    },

    async update(ctx: AuthedContext, input: SkuUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, trx, input.id, true);
          const spu = await goods(ctx, trx, input.goodsId ?? current.goodsId);
          if (spu.shopId !== current.shopId) throw err.otherShopGoods();
          const keep = <K extends keyof repo.SkuValues>(k: K, given: repo.SkuValues[K] | null | undefined) =>
            (given ?? current[k]) as repo.SkuValues[K];
          const v: repo.SkuValues = {
            goodsId: spu.id,
            merchantId: current.merchantId,
            shopId: current.shopId,
            skuName: input.skuName.trim(),
            goodsChannelId: keep('goodsChannelId', input.goodsChannelId),
            showPrice: keep('showPrice', input.showPrice),
            buyPrice: keep('buyPrice', input.buyPrice),
            costPrice: keep('costPrice', input.costPrice),
            buyCount: keep('buyCount', input.buyCount),
            stock: keep('stock', input.stock),
            isLogistic: keep('isLogistic', input.isLogistic),
            carriageId: keep('carriageId', input.carriageId),
            mold: keep('mold', input.mold),
            isDistributes: keep('isDistributes', input.isDistributes),
            commission: keep('commission', input.commission),
            isPreferential: keep('isPreferential', input.isPreferential),
            isUseScore: keep('isUseScore', input.isUseScore),
            isAddScore: keep('isAddScore', input.isAddScore),
            useScoreRate: keep('useScoreRate', input.useScoreRate),
            addScoreRate: keep('addScoreRate', input.addScoreRate),
            cardNum: keep('cardNum', input.cardNum),
            status: keep('status', input.status),
          };
          checkValues(spu, v);
          await repo.updateSku(trx, current.id, v, ctx.account.id);
          const owner = { skuId: current.id, merchantId: current.merchantId, shopId: current.shopId, goodsId: spu.id };
          const given = input.skuEntranceList ?? (await repo.entrancesOf(trx, [current.id])).get(current.id) ?? [];
          await reconcileEntrances(trx, owner, given, ctx.account.id);
        },
        () => input.id,
      );
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await visible(ctx, trx, id, true);
          await assertUnreferenced(trx, 'the SKU', id, repo.SKU_REFERENCES);
          await repo.softDeleteSku(trx, id, ctx.account.id);
        },
        () => id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<Sku> {
      return repo.skuWithEntrances(db, await visible(ctx, db, id));
    },

    list(ctx: AuthedContext, filter: SkuFilter): Promise<Sku[]> {
      return repo.listSkus(db, filter, scopeOf(ctx.account));
    },

    page(ctx: AuthedContext, query: SkuPageQuery): Promise<Page<Sku>> {
      return repo.pageSkus(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type SkuService = ReturnType<typeof createSkuService>;
