import { sql, type Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/**
 * The history tables become partitioned by month (docs/adr/0100-history-tables-partitioned-by-month.md):
 * card_check by check_time, the unbounded logs (operate_log, login_log, card_check_fail) by created_at.
 * Each is converted in place, in this migration's transaction: the old table is renamed, the
 * partitioned one is made with its columns (LIKE: the same names, types, defaults, NOT NULLs and
 * checks), one partition per month from its oldest row's month to three months ahead plus
 * `<table>_default`, the rows are copied with their ids (in id order), then the old table is dropped
 * and the key, indexes, foreign keys, triggers and id sequence are made on the new one, so each index
 * is built once over the copied rows instead of being maintained row by row.
 *
 * - Bounds are UTC months, partitions `<table>_pYYYYMM` (src/platform/db/partitions.ts makes the later
 *   ones with the same names and bounds).
 * - The primary key includes the partition column (a unique index of a partitioned table must). Ids
 *   come from a plain sequence owned by the column, past both the greatest id and the old identity's
 *   last value: PostgreSQL 15 has no identity column on a partitioned table.
 * - A scan's nonce cannot stay unique on a partitioned table (a re-sent scan may land in another
 *   month): its uniqueness moves to card_check_nonce and card_check_fail_nonce, keyed by verifier and
 *   nonce and pointing at the row (its id and partition column, so the look-up reads one partition).
 *   The nonce column stays on the rows it was sent with.
 * - The rename takes the table's ACCESS EXCLUSIVE lock: check-ins and log writes wait until this
 *   migration commits (the measured rate is in the ADR and docs/operations.md).
 */

interface HistoryTable {
  name: string;
  /** the partition column */
  column: string;
  /** how the old id column was generated (for down) */
  identity: 'always' | 'by default';
  indexes: string[];
  foreignKeys: string[];
  triggers: string[];
  /** the nonce index the table had (for down) */
  nonceIndex?: string;
}

const TABLES: HistoryTable[] = [
  {
    name: 'card_check',
    column: 'check_time',
    identity: 'by default',
    indexes: [
      `create index card_check_model_resource_time_idx on card_check (card_model_id, resource_id, check_time)`,
      `create index card_check_sku_time_idx on card_check (sku_id, check_time)`,
      `create index card_check_card_resource_day_idx on card_check (card_id, resource_id, check_date)`,
      `create index card_check_stat_time_idx on card_check (check_time) include (card_model_id, sku_id, consume_num) where not is_deleted`,
    ],
    foreignKeys: [
      `alter table card_check add foreign key (card_id) references card (id),
        add foreign key (card_model_id) references card_model (id),
        add foreign key (sku_id) references sku (id),
        add foreign key (resource_id) references spu (id),
        add foreign key (entrance_id) references sku_entrance (id),
        add foreign key (checker_id) references checker (id)`,
    ],
    // Migrations 0023 and 0025: a revoked folded check leaves its day's entries.
    triggers: [
      `create trigger stat_check_day_revoke_trg after update of is_deleted on card_check
        for each row when (new.is_deleted and not old.is_deleted) execute function stat_check_day_revoke()`,
    ],
    nonceIndex: `create unique index card_check_checker_nonce_uq on card_check (checker_id, nonce) where nonce is not null`,
  },
  {
    name: 'card_check_fail',
    column: 'created_at',
    identity: 'by default',
    indexes: [
      `create index card_check_fail_merchant_idx on card_check_fail (merchant_id, id)`,
      `create index card_check_fail_checker_idx on card_check_fail (checker_id, id)`,
    ],
    foreignKeys: [`alter table card_check_fail add foreign key (checker_id) references checker (id) on delete cascade`],
    triggers: [],
    nonceIndex: `create unique index card_check_fail_nonce_uq on card_check_fail (checker_id, nonce) where nonce is not null`,
  },
  {
    name: 'operate_log',
    column: 'created_at',
    identity: 'always',
    indexes: [
      `create index operate_log_created_idx on operate_log (created_at)`,
      `create index operate_log_account_idx on operate_log (account_kind, account_id, created_at)`,
    ],
    foreignKeys: [],
    triggers: [],
  },
  {
    name: 'login_log',
    column: 'created_at',
    identity: 'always',
    indexes: [`create index login_log_created_idx on login_log (created_at)`],
    foreignKeys: [],
    triggers: [],
  },
];

const MONTHS_AHEAD = 3;
const OLD = (t: HistoryTable) => `${t.name}_unpartitioned`;

/** The greatest id the table's rows or its old id sequence ever reached. */
async function highWater(db: Kysely<unknown>, table: string): Promise<number> {
  const r = await sql<{ high: string | number }>`
    select greatest(
      coalesce((select max(id) from ${sql.table(table)}), 0),
      coalesce((select s.last_value from pg_sequences s
        where format('%I.%I', s.schemaname, s.sequencename) = pg_get_serial_sequence(${table}, 'id')), 0)
    ) as high`.execute(db);
  return Number(r.rows[0].high);
}

/** YYYYMM of every UTC month from the oldest row's to MONTHS_AHEAD after the newest of it and now. */
async function monthsOf(db: Kysely<unknown>, table: string, column: string): Promise<string[]> {
  const col = sql.ref(column);
  const r = await sql<{ month: string }>`
    select to_char(m, 'YYYYMM') as month
    from (select date_trunc('month', coalesce(min(${col}), now()) at time zone 'UTC') as first,
            date_trunc('month', greatest(max(${col}), now()) at time zone 'UTC') as last
          from ${sql.table(table)}) b,
      generate_series(b.first, b.last + make_interval(months => ${MONTHS_AHEAD}), interval '1 month') m
    order by 1`.execute(db);
  return r.rows.map((row) => row.month);
}

const monthStart = (yyyymm: string) => `${yyyymm.slice(0, 4)}-${yyyymm.slice(4)}-01 00:00:00+00`;
function nextMonth(yyyymm: string): string {
  const y = Number(yyyymm.slice(0, 4));
  const m = Number(yyyymm.slice(4));
  return m === 12 ? `${y + 1}01` : `${y}${String(m + 1).padStart(2, '0')}`;
}

async function partition(db: Kysely<unknown>, t: HistoryTable): Promise<void> {
  const old = OLD(t);
  await runDdl(db, [`alter table ${t.name} rename to ${old}`]);
  const high = await highWater(db, old);
  const months = await monthsOf(db, old, t.column);
  await runDdl(db, [
    `create table ${t.name} (like ${old} including defaults including constraints) partition by range (${t.column})`,
    ...months.map(
      (m) =>
        `create table ${t.name}_p${m} partition of ${t.name} for values from ('${monthStart(m)}') to ('${monthStart(nextMonth(m))}')`,
    ),
    `create table ${t.name}_default partition of ${t.name} default`,
    `insert into ${t.name} select * from ${old} order by id`,
  ]);
  if (t.name === 'card_check') {
    await runDdl(db, [
      `insert into card_check_nonce (checker_id, nonce, check_id, check_time)
        select checker_id, nonce, id, check_time from card_check_unpartitioned where nonce is not null and checker_id is not null`,
    ]);
  }
  if (t.name === 'card_check_fail') {
    await runDdl(db, [
      `insert into card_check_fail_nonce (checker_id, nonce, fail_id, created_at)
        select checker_id, nonce, id, created_at from card_check_fail_unpartitioned where nonce is not null`,
    ]);
  }
  await runDdl(db, [
    `drop table ${old}`,
    `create sequence ${t.name}_id_seq as bigint owned by ${t.name}.id`,
    `alter table ${t.name} alter column id set default nextval('${t.name}_id_seq')`,
    `select setval('${t.name}_id_seq', ${Math.max(high, 1)}, ${high > 0})`,
    `alter table ${t.name} add primary key (id, ${t.column})`,
    ...t.indexes,
    ...t.foreignKeys,
    ...t.triggers,
    `analyze ${t.name}`,
  ]);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    // Owned by the checker module: the uniqueness of a verifier's scan ids, kept for good for checks
    // (check-ins are never dropped) and for as long as their refusal's log row (its retention).
    `create table card_check_nonce (
      checker_id bigint not null,
      nonce varchar(64) not null,
      check_id bigint not null,
      check_time timestamptz not null,
      primary key (checker_id, nonce)
    )`,
    `create table card_check_fail_nonce (
      checker_id bigint not null,
      nonce varchar(64) not null,
      fail_id bigint not null,
      created_at timestamptz not null,
      primary key (checker_id, nonce)
    )`,
    `create index card_check_fail_nonce_created_idx on card_check_fail_nonce (created_at)`,
  ]);
  for (const t of TABLES) await partition(db, t);
}

/** Back to plain tables with their identity columns and nonce indexes (the nonce tables go). */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) {
    const old = `${t.name}_partitioned`;
    await runDdl(db, [`alter table ${t.name} rename to ${old}`]);
    const high = await highWater(db, old);
    await runDdl(db, [
      `create table ${t.name} (like ${old} including constraints)`,
      `insert into ${t.name} select * from ${old} order by id`,
      `drop table ${old}`,
      `alter table ${t.name} alter column id add generated ${t.identity} as identity`,
      `select setval(pg_get_serial_sequence('${t.name}', 'id'), ${Math.max(high, 1)}, ${high > 0})`,
      `alter table ${t.name} add primary key (id)`,
      ...t.indexes,
      ...(t.nonceIndex ? [t.nonceIndex] : []),
      ...t.foreignKeys,
      ...t.triggers,
    ]);
  }
  await runDdl(db, ['drop table card_check_fail_nonce', 'drop table card_check_nonce']);
}
