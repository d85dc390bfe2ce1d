import type { Insertable } from 'kysely';
import type { DB } from '../../src/db/types.js';
import type { Executor } from '../../src/platform/db/executor.js';
import { createCardModel, createCardModelRule, createSku, createSpu, uniq } from '../helpers/factories.js';

/** Cards, checks and parks for the allocation tests; times are wire text in the test time zone. */

export async function createCard(
  db: Executor,
  o: Partial<Insertable<DB['card']>> & { card_model_id: number },
): Promise<number> {
  const r = await db
    .insertInto('card')
    .values({ card_number: uniq('C').slice(0, 32), status: 2, ...o })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export interface Park {
  spuId: number;
  skuId: number;
}

/** A scenic spot of a shop with one SKU, taking part in the model's allocation (way 5) unless told. */
export async function createPark(
  db: Executor,
  o: { cardModelId: number; shopId: number; merchantId: number; name?: string; way?: number },
): Promise<Park> {
  const spuId = await createSpu(db, {
    shop_id: o.shopId,
    merchant_id: o.merchantId,
    ...(o.name ? { name: o.name } : {}),
  });
  const skuId = await createSku(db, { goods_id: spuId });
  await createCardModelRule(db, { card_model_id: o.cardModelId, resource_id: spuId, settlement_way: o.way ?? 5 });
  return { spuId, skuId };
}

/** A check-in of `card` at `park` at the given time ('YYYY-MM-DD HH:mm:ss'). */
export async function createCheck(
  db: Executor,
  o: { cardId: number; cardModelId: number; park: Park; at: string; consumeNum?: number; deleted?: boolean },
): Promise<number> {
  const r = await db
    .insertInto('card_check')
    .values({
      card_id: o.cardId,
      card_model_id: o.cardModelId,
      sku_id: o.park.skuId,
      resource_id: o.park.spuId,
      consume_num: o.consumeNum ?? 1,
      check_time: o.at,
      check_date: o.at.slice(0, 10),
      is_deleted: o.deleted ?? false,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export { createCardModel };
