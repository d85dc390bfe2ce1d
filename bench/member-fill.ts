/**
 * The member set the member benches read (bench/member-page.bench.ts, bench/reads.bench.ts): `members`
 * members (1% disabled, channel 8 for 5%, registered over two years, distinct mobiles) and 0.4 cards per
 * member sold by 20 merchants with 3 shops each, merchant 1 selling half of them, each card bound to a
 * member. Set-based SQL (INSERT … SELECT over generate_series) loaded as the demo generator's fast load
 * does, when the session may: in one transaction without per-row triggers, the plain indexes dropped and
 * rebuilt after the rows and the holder statistics and member tally rebuilt set-wise. Per row, the holder trigger alone
 * made a million members take over eight minutes on PGlite (43 of 51 s at 100,000). Then VACUUM ANALYZE.
 */
import { sql } from 'kysely';
import type { Db } from '../src/platform/db/database.js';
import type { Executor } from '../src/platform/db/executor.js';
import {
  canLoadWithoutTriggers,
  dropPlainIndexes,
  rebuildIndexes,
  setBulkMemory,
  setReplicationRole,
} from '../src/seed/demo/demo.repository.js';
import { FAST_LOAD_REPLAYED_TRIGGERS, rebuildHolderTables } from '../src/seed/demo/replayed-triggers.js';

const TABLES = ['merchant', 'shop', 'card_model', 'member', 'card', 'card_binding'] as const;

/** How many cards the fill sells for `members` members. */
export const cardCount = (members: number) => Math.round(members * 0.4);

/** Fills a migrated database; answers the seconds it took. */
export async function fillMembers(db: Db, members: number): Promise<number> {
  const started = performance.now();
  await db.transaction().execute(async (trx) => {
    // No foreign key is checked in replica mode: every id below is read from the rows just written.
    if (await canLoadWithoutTriggers(trx, TABLES, FAST_LOAD_REPLAYED_TRIGGERS)) {
      await setReplicationRole(trx, true);
      await setBulkMemory(trx, '256MB');
      const indexes = await dropPlainIndexes(trx, ['member', 'card', 'card_binding']);
      await insertRows(trx, members);
      await rebuildIndexes(trx, indexes);
      await rebuildHolderTables(trx);
      await setReplicationRole(trx, false);
    } else {
      await insertRows(trx, members);
    }
  });
  // As autovacuum leaves a settled table: statistics, and the visibility map that index-only scans need.
  await sql`vacuum analyze`.execute(db);
  return (performance.now() - started) / 1000;
}

async function insertRows(db: Executor, members: number): Promise<void> {
  const cards = cardCount(members);
  await sql`insert into merchant (name) select 'Bench merchant ' || g from generate_series(1, 20) g`.execute(db);
  await sql`insert into shop (merchant_id, name) select m.id, 'Shop ' || m.id || '-' || k from merchant m, generate_series(1, 3) k`.execute(
    db,
  );
  await sql`insert into card_model (name, price) values ('Bench card', 19800)`.execute(db);
  await sql`
    insert into member (open_id, mobile, status, channel, register_terminal, nickname, created_at)
    select 'bench_' || g, '13' || lpad(((g::bigint * 48271) % 1000000000)::text, 9, '0'),
      case when g % 100 = 0 then 0 else 1 end, case when g % 20 = 0 then 8 else 1 + g % 7 end, 2, 'M' || g,
      timestamptz '2026-06-30 00:00:00' - (g % 730) * interval '1 day' - (g % 86400) * interval '1 second'
    from generate_series(1, ${members}) g`.execute(db);
  await sql`
    with ids as (
      select (select array_agg(id order by id) from merchant) as m,
             (select array_agg(id order by merchant_id, id) from shop) as s,
             (select min(id) from card_model) as model
    ), pick as (
      select g, case when g % 2 = 0 then 0 else 1 + g % 19 end as k from generate_series(1, ${cards}) g
    )
    insert into card (card_number, card_model_id, status, channel, merchant_id, shop_id, active_time, expire_time)
    select 'B' || g, ids.model, 2, 3, ids.m[k + 1], ids.s[k * 3 + g % 3 + 1], now() - interval '30 days', now() + interval '300 days'
    from pick, ids`.execute(db);
  await sql`
    insert into card_binding (card_id, member_id, name, phone)
    select c.id, mb.id, 'Holder', mb.mobile
    from card c join member mb on mb.id = (select min(id) from member) + ((c.id * 7919) % ${members})`.execute(db);
}
