import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The number of living members by status and channel, kept by a trigger (docs/adr/0061-member-page-total-from-a-tally.md).
 * queryMemberPage answers the total of the members it pages; on a
 * million members `count(*)` read the whole table on every page (~45 ms of the database, 22 pages a
 * second at 50 clients on PostgreSQL, 4 on PGlite). The platform's page without a mobile or date
 * filter now sums at most a few hundred rows of this table instead.
 *
 * `slot` spreads the counting over 16 rows per (status, channel) by the writing backend, so concurrent
 * registrations do not queue on one row lock until their commit. A slot may go below zero (a member
 * counted in one slot, deleted from another); only the sums mean anything, and they are exact: the
 * rows change in the transaction that changes the member. A load that runs without triggers (the demo
 * generator's fast load) rebuilds the table with member_tally_refresh_all, as this migration does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    `create table member_tally (
      status smallint not null,
      channel smallint not null,
      slot smallint not null,
      living bigint not null,
      primary key (status, channel, slot)
    )`,
    // channel 0: a member without a channel (the column allows 1–8 or null).
    `create function member_tally_add(s smallint, ch smallint, delta integer) returns void language sql as $$
      insert into member_tally as t (status, channel, slot, living) values (s, coalesce(ch, 0), pg_backend_pid() % 16, delta)
      on conflict (status, channel, slot) do update set living = t.living + delta;
    $$`,
    // A status change moves a member between two rows of its slot: the lower (status, channel) is
    // always changed first, so two changes in opposite directions by backends sharing a slot cannot
    // deadlock. (A transaction that changed several members could still take rows in another order;
    // the service changes one member per transaction.)
    `create function member_tally_count() returns trigger language plpgsql as $$
    declare
      old_counted boolean := tg_op <> 'INSERT' and not old.is_deleted;
      new_counted boolean := tg_op <> 'DELETE' and not new.is_deleted;
    begin
      if old_counted and new_counted and old.status = new.status and old.channel is not distinct from new.channel then
        return null;
      end if;
      if old_counted and new_counted and (new.status, coalesce(new.channel, 0)) < (old.status, coalesce(old.channel, 0)) then
        perform member_tally_add(new.status, new.channel, 1);
        perform member_tally_add(old.status, old.channel, -1);
        return null;
      end if;
      if old_counted then
        perform member_tally_add(old.status, old.channel, -1);
      end if;
      if new_counted then
        perform member_tally_add(new.status, new.channel, 1);
      end if;
      return null;
    end $$`,
    `create trigger member_tally_trg after insert or delete or update of status, channel, is_deleted
      on member for each row execute function member_tally_count()`,
    // TRUNCATE skips row triggers; the tally is emptied with the table.
    `create function member_tally_truncated() returns trigger language plpgsql as $$
    begin
      delete from member_tally;
      return null;
    end $$`,
    `create trigger member_tally_truncate_trg after truncate on member for each statement execute function member_tally_truncated()`,
    `create function member_tally_refresh_all() returns void language sql as $$
      delete from member_tally;
      insert into member_tally (status, channel, slot, living)
        select status, coalesce(channel, 0), 0, count(*) from member where not is_deleted group by 1, 2;
    $$`,
    `select member_tally_refresh_all()`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'drop trigger member_tally_truncate_trg on member',
    'drop trigger member_tally_trg on member',
    'drop function member_tally_refresh_all()',
    'drop function member_tally_truncated()',
    'drop function member_tally_count()',
    'drop function member_tally_add(smallint, smallint, integer)',
    'drop table member_tally',
  ]);
}
