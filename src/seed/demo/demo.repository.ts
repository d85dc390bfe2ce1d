import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.js';
import { findRoleIdByCode, insertRole, insertUser, replaceUserRoles } from '../../modules/staff/index.js';
import { ID_TABLES, type IdBases, type IdTable } from './ids.js';
import type { StaffSpec } from './organisation.js';

/** The demo generator's SQL (besides the bulk writers in writer.ts). */

// Any constant: serialises concurrent demo runs (two instances started with DEMO=1).
const DEMO_LOCK_KEY = 7_320_261_122;

const table = (name: IdTable | string) => sql.table(name);
/** array['a'::regclass, …] of known table names (never user input) */
const regclasses = (tables: readonly string[]) =>
  `array[${tables.map((t) => `'${t.replace(/'/g, "''")}'::regclass`).join(',')}]`;

export async function lockDemoSeeding(db: Executor): Promise<void> {
  await sql`select pg_advisory_xact_lock(${sql.lit(DEMO_LOCK_KEY)})`.execute(db);
}

export interface DemoDatasetRow {
  seed: number;
  scale: number;
  maxMerchantId: number;
  maxCardId: number;
  maxCheckId: number;
  checkRows: number;
  createdAt: Date;
}

export async function listDemoDatasets(db: Executor): Promise<DemoDatasetRow[]> {
  const rows = await db.selectFrom('demo_dataset').selectAll().orderBy('id').execute();
  return rows.map((r) => ({
    seed: r.seed,
    scale: r.scale,
    maxMerchantId: r.max_merchant_id,
    maxCardId: r.max_card_id,
    maxCheckId: r.max_check_id,
    checkRows: r.check_rows,
    createdAt: r.created_at,
  }));
}

/** Highest id of the business tables the safety rule watches (null when a table is empty). */
export async function businessMaxIds(
  db: Executor,
): Promise<{ merchant: number | null; card: number | null; check: number | null }> {
  const r = await sql<{ merchant: number | null; card: number | null; check: number | null }>`
    select (select max(id) from merchant) as merchant, (select max(id) from card) as card, (select max(id) from card_check) as check`.execute(
    db,
  );
  return r.rows[0];
}

export async function insertDemoDataset(db: Executor, v: Omit<DemoDatasetRow, 'createdAt'>): Promise<void> {
  await db
    .insertInto('demo_dataset')
    .values({
      seed: v.seed,
      scale: v.scale,
      max_merchant_id: v.maxMerchantId,
      max_card_id: v.maxCardId,
      max_check_id: v.maxCheckId,
      check_rows: v.checkRows,
    })
    .execute();
}

/** Each table's high-water mark: the larger of max(id) and its identity sequence's last value. */
export async function idBases(db: Executor): Promise<IdBases> {
  const bases = {} as IdBases;
  for (const t of ID_TABLES) {
    const r = await sql<{ base: number }>`
      select greatest(coalesce((select max(id) from ${table(t)}), 0), coalesce(pg_sequence_last_value(pg_get_serial_sequence(${t}, 'id')::regclass), 0))::bigint as base`.execute(
      db,
    );
    bases[t] = Number(r.rows[0].base);
  }
  return bases;
}

/** Moves each identity sequence past the ids the generator inserted. */
export async function advanceSequences(db: Executor): Promise<void> {
  for (const t of ID_TABLES) {
    await sql`
      select setval(s.seq, m.top)
      from (select pg_get_serial_sequence(${t}, 'id')::regclass as seq) s, (select max(id) as top from ${table(t)}) m
      where m.top is not null and m.top > coalesce(pg_sequence_last_value(s.seq), 0)`.execute(db);
  }
}

export async function takenUsernames(db: Executor, usernames: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('admin_user')
    .select('username')
    .where('username', 'in', usernames)
    .where('is_deleted', '=', false)
    .execute();
  return rows.map((r) => r.username);
}

export async function takenCheckerMobiles(db: Executor, mobiles: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('checker')
    .select('mobile')
    .where('mobile', 'in', mobiles)
    .where('status', '=', 1)
    .where('is_deleted', '=', false)
    .execute();
  return rows.map((r) => r.mobile);
}

export async function findMemberIdByOpenId(db: Executor, openId: string): Promise<number | null> {
  const r = await db.selectFrom('member').select('id').where('open_id', '=', openId).executeTakeFirst();
  return r?.id ?? null;
}

/** The demo roles by code: found, or made as global roles through the role repository. */
export async function demoRoleIds(
  db: Executor,
  roles: Record<string, { name: string; permissions: string[] }>,
): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  for (const [code, role] of Object.entries(roles)) {
    ids[code] =
      (await findRoleIdByCode(db, code)) ??
      (await insertRole(
        db,
        { code, name: role.name, permissions: role.permissions, merchantId: null, shopId: null, remark: null },
        null,
      ));
  }
  return ids;
}

/** Inserts the staff accounts through the staff repository (ids from the database); returns username → id. */
export async function insertDemoStaff(
  db: Executor,
  staff: StaffSpec[],
  passwordHash: string,
  roleIds: Record<string, number>,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const s of staff) {
    const id = await insertUser(
      db,
      {
        username: s.username,
        passwordHash,
        nickname: s.nickname,
        mobile: s.mobile,
        userType: s.userType,
        merchantId: s.merchantId,
        shopId: s.shopId,
        deptId: s.deptId,
      },
      null,
    );
    await replaceUserRoles(db, id, [roleIds[s.role]]);
    ids.set(s.username, id);
  }
  return ids;
}

// ---- Fast bulk load: per-row FK triggers off, checked set-wise before commit ------------------------

/**
 * Whether this session may load without per-row foreign-key triggers: it must be a superuser (the
 * only role allowed to set session_replication_role) and no table written may carry a trigger of its
 * own (replica mode would skip it too) other than `replayed`, the triggers whose work the caller
 * redoes set-wise after the load.
 */
export async function canLoadWithoutTriggers(
  db: Executor,
  tables: readonly string[],
  replayed: readonly string[] = [],
): Promise<boolean> {
  const r = await sql<{ superuser: boolean; user_triggers: number }>`
    select (select rolsuper from pg_roles where rolname = current_user) as superuser,
      (select count(*) from pg_trigger
       where not tgisinternal and tgrelid = any(${sql.raw(regclasses(tables))}) and tgname <> all(${[...replayed]}::text[]))::int as user_triggers`.execute(
    db,
  );
  return r.rows[0].superuser === true && Number(r.rows[0].user_triggers) === 0;
}

export async function setReplicationRole(db: Executor, replica: boolean): Promise<void> {
  await sql.raw(`set local session_replication_role = ${replica ? 'replica' : 'origin'}`).execute(db);
}

export interface IndexDef {
  name: string;
  definition: string;
}

/** Drops the plain (non-unique, non-constraint) indexes of the tables; returns what rebuilds them. */
export async function dropPlainIndexes(db: Executor, tables: readonly string[]): Promise<IndexDef[]> {
  const r = await sql<IndexDef>`
    select x.indexrelid::regclass::text as name, pg_get_indexdef(x.indexrelid) as definition
    from pg_index x
    where x.indrelid = any(${sql.raw(regclasses(tables))}) and not x.indisunique and not x.indisprimary
      and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)
    order by 1`.execute(db);
  for (const ix of r.rows) await sql.raw(`drop index ${ix.name}`).execute(db);
  // A partitioned table's index reads "ON ONLY": rebuilt as that it would cover none of the partitions.
  return r.rows.map((ix) => ({ ...ix, definition: ix.definition.replace(/ ON ONLY /, ' ON ') }));
}

/**
 * Sort memory for the index builds and the foreign-key check, e.g. '512MB', and how many parallel
 * workers an index build may add to this session's process (per-transaction settings; the server's
 * max_worker_processes still bounds the workers).
 */
export async function setBulkMemory(db: Executor, memory: string, indexWorkers = 0): Promise<void> {
  if (!/^\d+MB$/.test(memory)) throw new Error(`bad memory setting ${memory}`);
  if (!Number.isInteger(indexWorkers) || indexWorkers < 0) throw new Error(`bad worker count ${indexWorkers}`);
  await sql.raw(`set local maintenance_work_mem = '${memory}'`).execute(db);
  await sql.raw(`set local work_mem = '${memory}'`).execute(db);
  await sql.raw(`set local max_parallel_maintenance_workers = ${indexWorkers}`).execute(db);
}

/** Whether the table is partitioned (the history tables are, by month, from migration 0032 on). */
export async function isPartitioned(db: Executor, name: string): Promise<boolean> {
  const r = await sql<{ partitioned: boolean }>`
    select exists (select 1 from pg_partitioned_table where partrelid = to_regclass(${name})) as partitioned`.execute(
    db,
  );
  return r.rows[0].partitioned === true;
}

/** The columns' types as format_type names them, in the order asked (null for a missing column). */
export async function columnTypes(db: Executor, name: string, columns: readonly string[]): Promise<(string | null)[]> {
  const r = await sql<{ name: string; type: string }>`
    select attname as name, format_type(atttypid, null) as type from pg_attribute
    where attrelid = to_regclass(${name}) and attnum > 0 and not attisdropped`.execute(db);
  const types = new Map(r.rows.map((row) => [row.name, row.type]));
  return columns.map((c) => types.get(c) ?? null);
}

/**
 * Empties the table (and its partitions) in this transaction: its files are new, so COPY may FREEZE
 * its rows and, on a server with wal_level = minimal, skips writing them to the WAL (ADR 0103). The
 * caller has checked that the table holds no rows (safety.ts); the ACCESS EXCLUSIVE lock is held to
 * commit.
 */
export async function truncateForLoad(db: Executor, name: string): Promise<void> {
  await sql`truncate table ${table(name)}`.execute(db);
}

export async function rebuildIndexes(db: Executor, defs: IndexDef[]): Promise<void> {
  for (const ix of defs) await sql.raw(ix.definition).execute(db);
}

/**
 * Checks every foreign key of the tables set-wise (what ALTER TABLE … VALIDATE CONSTRAINT does);
 * returns the constraints that some row violates.
 */
export async function violatedForeignKeys(db: Executor, tables: readonly string[]): Promise<string[]> {
  const fks = await sql<{ name: string; child: string; parent: string; cols: string[]; refs: string[] }>`
    select c.conname as name, c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent,
      array(select quote_ident(a.attname) from unnest(c.conkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.o)::text[] as cols,
      array(select quote_ident(a.attname) from unnest(c.confkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.o)::text[] as refs
    from pg_constraint c
    where c.contype = 'f' and c.conrelid = any(${sql.raw(regclasses(tables))})
    order by 1`.execute(db);
  // One pass per table: left-join every parent, and name the constraints some row fails.
  const violated: string[] = [];
  for (const child of [...new Set(fks.rows.map((fk) => fk.child))]) {
    const own = fks.rows.filter((fk) => fk.child === child);
    const joins = own.map(
      (fk, n) =>
        `left join ${fk.parent} p${n} on ${fk.cols.map((c, k) => `p${n}.${fk.refs[k]} = t.${c}`).join(' and ')}`,
    );
    const fails = own.map(
      (fk, n) =>
        `bool_or(${fk.cols.map((c) => `t.${c} is not null`).join(' and ')} and p${n}.${fk.refs[0]} is null) as f${n}`,
    );
    const r = await sql
      .raw<Record<string, boolean | null>>(`select ${fails.join(', ')} from ${child} t ${joins.join(' ')}`)
      .execute(db);
    own.forEach((fk, n) => {
      if (r.rows[0][`f${n}`]) violated.push(fk.name);
    });
  }
  return violated;
}

/** Gathers the planner's statistics of the tables (a partitioned one with its partitions). */
export async function analyzeTables(db: Executor, tables: readonly string[]): Promise<void> {
  await sql`analyze ${sql.join(tables.map((t) => sql.table(t)))}`.execute(db);
}
