import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * One living finance account per owner (a merchant, or one of its shops) and kind (ebank_type 1
 * merchant settlement, 2 sales settlement): getInvoiceSettlementCard reads "the" merchant-settlement
 * account of a merchant, and the merchantFinance operations answer 409 for a second one. Rows written
 * before (no operation made them, only direct loads) keep the newest per owner and kind; the older
 * ones are deleted logically, as deleteMerchantFinance would. The unique index replaces the plain one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `update merchant_finance f set is_deleted = true, updated_at = now()
      where not f.is_deleted and exists (
        select 1 from merchant_finance g
        where not g.is_deleted and g.merchant_id = f.merchant_id and g.shop_id is not distinct from f.shop_id
          and g.ebank_type = f.ebank_type and g.id > f.id)`,
    // Shop ids start at 1, so 0 stands for "the merchant itself" (a unique index treats nulls as distinct).
    `create unique index merchant_finance_owner_uq on merchant_finance (merchant_id, coalesce(shop_id, 0), ebank_type) where not is_deleted`,
    'drop index merchant_finance_merchant_idx',
  ]);
}

/** The accounts deleted as duplicates stay deleted: which ones they were is not kept. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop index merchant_finance_owner_uq',
    'create index merchant_finance_merchant_idx on merchant_finance (merchant_id, ebank_type) where not is_deleted',
  ]);
}
