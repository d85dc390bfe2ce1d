import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The holders of the member portrait (statCardArea; docs/adr/0070-holder-attributes-computed-when-a-binding-is-written.md).
 * stat_holder has one narrow row per living binding of a living card: the card's model, seller and
 * activation (the statistics' scope and cohort), the holder's document (an md5 of the ID type and
 * upper-cased number, for profitAccounting's count of distinct documents: hashing 16 bytes instead of
 * the text) and the holder's resolved gender, birth date (YYYYMMDD) and district, each from the member
 * record when the holder has one that says it, else from the binding's resident ID number
 * (card_binding.id_sex, id_birth, id_district). The portrait and profit's binding figures then scan
 * this table alone instead of joining the bindings with their cards and members.
 *
 * Kept by triggers, so no write path can forget it: a binding written, changed or deleted; a member's
 * gender, birthday, area or deletion changed; a card's model, seller, activation or deletion changed
 * (the one card trigger of the statistics, migration 0022). Each recomputes the rows of the bindings
 * concerned with one function, stat_holder_refresh. The demo
 * generator's fast load runs without triggers and then rebuilds the whole table with
 * stat_holder_refresh_all (the statistics module's holder.repository.ts), as this migration does.
 */

/** The holder rows of the bindings matching `where` (over card_binding b, card c, member m). */
function holderRowsSelect(where: string): string {
  return `select b.id, c.card_model_id, c.merchant_id, c.shop_id, c.active_time,
      md5(coalesce(b.id_type::text, '') || ':' || coalesce('=' || upper(b.id_no), ''))::uuid,
      case when m.sex in (1, 2) then m.sex else coalesce(b.id_sex, 0) end,
      case when m.birthday is not null
        then (extract(year from m.birthday) * 10000 + extract(month from m.birthday) * 100 + extract(day from m.birthday))::int
        else b.id_birth end,
      coalesce(m.area_id, b.id_district)
    from card_binding b
    join card c on c.id = b.card_id
    left join member m on m.id = b.member_id and not m.is_deleted
    where not b.is_deleted and not c.is_deleted and (${where})`;
}

const STAT_HOLDER_COLUMNS =
  'binding_id, card_model_id, merchant_id, shop_id, active_time, document, sex, birth, district';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `create table stat_holder (
      binding_id bigint primary key,
      card_model_id bigint not null,
      merchant_id bigint,
      shop_id bigint,
      active_time timestamptz,
      document uuid not null,
      sex smallint not null,
      birth integer,
      district bigint
    )`,
    // A shop user's portrait reads its own few rows.
    `create index stat_holder_shop_idx on stat_holder (shop_id) where shop_id is not null`,
    // profitAccounting counts a cohort's distinct documents as they stream by in this index's order.
    `create index stat_holder_document_idx on stat_holder (document) include (active_time, card_model_id, merchant_id, shop_id)`,
    `create function stat_holder_refresh(bindings bigint[]) returns void language sql as $$
      delete from stat_holder where binding_id = any(bindings);
      insert into stat_holder (${STAT_HOLDER_COLUMNS}) ${holderRowsSelect('b.id = any(bindings)')};
    $$`,
    `create function stat_holder_refresh_all() returns void language sql as $$
      delete from stat_holder;
      insert into stat_holder (${STAT_HOLDER_COLUMNS}) ${holderRowsSelect('true')};
    $$`,
    `create function stat_holder_binding() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        delete from stat_holder where binding_id = old.id;
      else
        if tg_op = 'UPDATE' and old.id <> new.id then
          delete from stat_holder where binding_id = old.id;
        end if;
        perform stat_holder_refresh(array[new.id]);
      end if;
      return null;
    end $$`,
    `create trigger stat_holder_binding_trg after insert or delete or update of id, card_id, member_id, id_type, id_no, is_deleted
      on card_binding for each row execute function stat_holder_binding()`,
    `create function stat_holder_member() returns trigger language plpgsql as $$
    begin
      perform stat_holder_refresh(array(select id from card_binding where member_id = new.id and not is_deleted));
      return null;
    end $$`,
    `create trigger stat_holder_member_trg after update of sex, birthday, area_id, is_deleted on member for each row
      when (old.sex is distinct from new.sex or old.birthday is distinct from new.birthday
        or old.area_id is distinct from new.area_id or old.is_deleted is distinct from new.is_deleted)
      execute function stat_holder_member()`,
    'select stat_holder_refresh_all()',
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop trigger stat_holder_member_trg on member',
    'drop trigger stat_holder_binding_trg on card_binding',
    'drop function stat_holder_member()',
    'drop function stat_holder_binding()',
    'drop function stat_holder_refresh_all()',
    'drop function stat_holder_refresh(bigint[])',
    'drop table stat_holder',
  ]);
}
