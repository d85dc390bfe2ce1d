import type { Executor } from '../../platform/db/executor.js';

// addShop gives a shop its top department and deleteShop takes its departments with it; the rows are
// this module's (docs/architecture.md §4), written in the shop module's transaction.

export async function insertTopDept(
  db: Executor,
  shop: { id: number; merchantId: number; name: string },
  by: number,
): Promise<number> {
  const r = await db
    .insertInto('dept')
    .values({
      merchant_id: shop.merchantId,
      shop_id: shop.id,
      name: shop.name.slice(0, 64),
      parent_id: 0,
      sort: 0,
      created_by: by,
      updated_by: by,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** Deletes the shop's living departments logically. */
export async function deleteShopDepts(db: Executor, shopId: number, by: number, at: Date): Promise<void> {
  await db
    .updateTable('dept')
    .set({ is_deleted: true, updated_by: by, updated_at: at })
    .where('shop_id', '=', shopId)
    .where('is_deleted', '=', false)
    .execute();
}
