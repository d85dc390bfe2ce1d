import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * `cardNum` belongs to SKUs of tourism-card goods (resource type 1) only. A resource's type change
 * made before such changes were refused (while a living SKU carries cardNum) left it on SKUs of goods
 * of another type, and updateSku cleared it on each update of such a SKU. No write can leave one now
 * (addSku and updateSku refuse cardNum on other goods, moves included; updateSpu refuses the type
 * change, both holding the resource's row), so the living ones are cleared once here and an absent
 * cardNum keeps the stored one, as every other field. Deleted SKUs are history and stay as they are.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `update sku set card_num = null, updated_at = now()
      where card_num is not null and not is_deleted and goods_id in (select id from spu where resource_type <> 1)`,
  ]);
}

/** Which SKUs held a stray cardNum is not kept: nothing to restore. */
export async function down(_db: Kysely<unknown>): Promise<void> {}
