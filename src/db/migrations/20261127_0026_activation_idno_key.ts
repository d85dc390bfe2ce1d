import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * One person, one bank activation per channel (docs/domain.md §5, 504), whatever the case, punctuation or
 * declared document type of the ID number: activation_record_idno_uq moves from (channel, type,
 * number as typed) to (channel, user_idno_key), the number upper-cased with everything but letters
 * and digits dropped (the service writes the same key; see activation.service.ts idNumberKey).
 *
 * Records written before this may already hold one person twice in a channel (the duplicates this
 * closes). The migration must not fail on them and must not delete records that carry orders and
 * cards, so the earliest record of each (channel, key) keeps its key and the later ones get none:
 * they stay as they are, outside the index, and the kept record still refuses the person from now on.
 * A null key is otherwise never written.
 */
const KEY_OF_IDNO = `nullif(regexp_replace(upper(user_idno), '[^A-Z0-9]', '', 'g'), '')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `alter table activation_record add column user_idno_key varchar(32)`,
    `update activation_record set user_idno_key = ${KEY_OF_IDNO}`,
    // Earlier duplicates only: the subquery reads the table as it was before this statement.
    `update activation_record a set user_idno_key = null
      where exists (select 1 from activation_record b
        where b.channel_info_id = a.channel_info_id and b.user_idno_key = a.user_idno_key and b.id < a.id)`,
    `drop index activation_record_idno_uq`,
    `create unique index activation_record_idno_uq on activation_record (channel_info_id, user_idno_key)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `drop index activation_record_idno_uq`,
    `alter table activation_record drop column user_idno_key`,
    `create unique index activation_record_idno_uq on activation_record (channel_info_id, user_id_type, user_idno)`,
  ]);
}
