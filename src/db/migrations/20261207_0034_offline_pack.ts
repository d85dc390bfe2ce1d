import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The offline pack of a gate (docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md, issue 39).
 *
 * - offline_pack_key: the Ed25519 key packs are signed with when OFFLINE_PACK_SIGNING_KEY is unset,
 *   made by the first instance that needs it (insert … on conflict do nothing, then read), so every
 *   instance signs with the same key. One row; owned by the checker module.
 * - card_pack_idx: a pack reads the admissible cards of a few card models in (model, id) order, in
 *   keyset batches, without visiting the cards of other models (12.5M cards at scale).
 * - card_updated_idx, card_binding_updated_idx, card_check_day_count_day_idx: a delta finds the cards
 *   whose status, validity or binding changed, and today's counters raised or given back, since its
 *   cursor by range scans instead of reading the tables.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `create table offline_pack_key (
      id smallint primary key default 1 check (id = 1),
      key_id text not null,
      private_key text not null,
      created_at timestamptz not null default now()
    )`,
    `create index card_pack_idx on card (card_model_id, id) where status = 2 and not is_deleted`,
    `create index card_updated_idx on card (updated_at)`,
    `create index card_binding_updated_idx on card_binding (updated_at)`,
    `create index card_check_day_count_day_idx on card_check_day_count (check_date, updated_at)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop index card_check_day_count_day_idx',
    'drop index card_binding_updated_idx',
    'drop index card_updated_idx',
    'drop index card_pack_idx',
    'drop table offline_pack_key',
  ]);
}
