import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * Indexes of the member page (queryMemberPage on a million members, bench/member-page.bench.ts) and of
 * the member's contacts. No unique index on member.mobile: demo and migrated data hold duplicate
 * mobiles, so bindPhone serialises on the mobile with an advisory lock instead (docs/adr/0059-no-unique-index-on-member-mobile.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    // mobile filter (a prefix, the whole number included) and bindPhone's "who holds this mobile".
    `create index member_mobile_prefix_idx on member (mobile varchar_pattern_ops) where not is_deleted`,
    // status and channel filters in page order, so a rare value neither scans the table nor counts it.
    `create index member_status_page_idx on member (status, id) where not is_deleted`,
    `create index member_channel_page_idx on member (channel, id) where not is_deleted`,
    // merchant and shop scoping: the cards a business sold, then who holds them, both read from the
    // index alone (index-only scans), so a scoped count never visits the card or binding rows.
    `create index card_seller_idx on card (merchant_id, shop_id, id) where not is_deleted`,
    `create index card_binding_holder_idx on card_binding (card_id, member_id) where not is_deleted`,
    `create index member_contacts_owner_idx on member_contacts (member_id, id) where not is_deleted`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop index member_contacts_owner_idx',
    'drop index card_binding_holder_idx',
    'drop index card_seller_idx',
    'drop index member_channel_page_idx',
    'drop index member_status_page_idx',
    'drop index member_mobile_prefix_idx',
  ]);
}
