import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The role codes the system finds roles by are reserved: addRole refuses them in any case and a
 * role's code never changes afterwards (updateRole writes name, permissions and remark only). A
 * merchant's or shop's role may still hold one from before the reservation; addShop renamed such a
 * `shop_admin` role on every call until now. This renames them once, each to `<code>_m<merchantId>_<id>`
 * (merchant 0 when only the shop is set), as addShop did: the role keeps its permissions and holders,
 * and the code names the global role alone, so no merchant's role is ever linked to another's users.
 * The list is this migration's own copy of system-roles.ts, as it stood: a later change there must not
 * change what ran here.
 */
const RESERVED = `('super_admin', 'merchant_admin', 'shop_admin')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `update role set code = code || '_m' || coalesce(merchant_id, 0) || '_' || id, updated_at = now()
      where code in ${RESERVED} and (merchant_id is not null or shop_id is not null)`,
  ]);
}

/** The old codes are not restored: the roles would clash with the global ones again. */
export async function down(_db: Kysely<unknown>): Promise<void> {}
