import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The spec's smallest add requests (docs/adr/0022-the-spec-smallest-requests-get-documented-defaults.md):
 *
 * - A verifier setting without a verifier is a default of its owner's verifiers: the platform's (no
 *   merchant), a merchant's or a shop's (`shop_id`, new). One value per item and owner, as per item
 *   and verifier. Rows without a verifier could only come from outside the service until now; should
 *   some repeat an item within their owner, the newest keeps it and the older ones are deleted
 *   (logically), as the app reads its settings as a map of items anyway.
 * - A distributor may be added without a name, and a distributor user without a name, a mobile or a
 *   distributor (attached later by updateCustomDisUser).
 * - A contract may be recorded before its parties are known: party A and party B may be open.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `alter table checker_config add column shop_id bigint`,
    `update checker_config c set shop_id = k.shop_id from checker k where k.id = c.checker_id`,
    `update checker_config a set is_deleted = true, updated_at = now()
      where a.checker_id is null and not a.is_deleted and a.item is not null and exists (select 1 from checker_config b
        where b.checker_id is null and not b.is_deleted and b.item = a.item and b.id > a.id
          and coalesce(b.merchant_id, 0) = coalesce(a.merchant_id, 0) and coalesce(b.shop_id, 0) = coalesce(a.shop_id, 0))`,
    `create unique index checker_config_default_item_uq on checker_config (coalesce(merchant_id, 0), coalesce(shop_id, 0), item)
      where checker_id is null and not is_deleted`,

    `alter table custom_dis alter column name drop not null`,
    `alter table custom_dis_user alter column name drop not null`,
    `alter table custom_dis_user alter column mobile drop not null`,
    `alter table custom_dis_user alter column custom_dis_id drop not null`,

    `alter table merchant_contract alter column merchant_a drop not null`,
    `alter table merchant_contract alter column merchant_b drop not null`,
  ]);
}

/** Refuses to run while rows use what it allowed: they would have to be deleted to go back. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `alter table merchant_contract alter column merchant_b set not null`,
    `alter table merchant_contract alter column merchant_a set not null`,
    `alter table custom_dis_user alter column custom_dis_id set not null`,
    `alter table custom_dis_user alter column mobile set not null`,
    `alter table custom_dis_user alter column name set not null`,
    `alter table custom_dis alter column name set not null`,
    'drop index checker_config_default_item_uq',
    `alter table checker_config drop column shop_id`,
  ]);
}
