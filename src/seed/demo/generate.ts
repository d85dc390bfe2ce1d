import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import { hashPassword } from '../../platform/auth/password.js';
import { addMonths, daysBetween, formatDay, startOfLocalDay } from './calendar.js';
import { BANK_DEMO_TABLES, writeBankDemo } from './bank.js';
import { buildCardModels } from './card-models.js';
import { bindingRows, cardRows, memberRows, type HolderContext } from './card-rows.js';
import { planCards } from './cards.js';
import { checkRows, type CheckTally } from './checks.js';
import { CheckRollup } from './rollup.js';
import {
  CHECKS_PER_CARD,
  DEFAULT_SCALE,
  DEFAULT_SEED,
  DEMO_MEMBER_OPEN_ID,
  DEMO_PASSWORD,
  DEMO_PLATFORM_USER,
  historyMonths,
  MIN_CARDS,
} from './constants.js';
import {
  advanceSequences,
  businessMaxIds,
  analyzeTables,
  canLoadWithoutTriggers,
  demoRoleIds,
  dropPlainIndexes,
  findMemberIdByOpenId,
  idBases,
  insertDemoDataset,
  insertDemoStaff,
  lockDemoSeeding,
  rebuildIndexes,
  setBulkMemory,
  setReplicationRole,
  violatedForeignKeys,
} from './demo.repository.js';
import { ID_TABLES, IdAllocator } from './ids.js';
import { buildOrganisation, DEMO_ROLES } from './organisation.js';
import type { TableRows } from './rows.js';
import { assessDatabase, loginConflict } from './safety.js';
import { buildScenicCatalog } from './scenic.js';
import { REPOSITORY_TABLES, writeThroughRepositories } from './owned-records.js';
import { withDemoSession, type BinaryTarget, type DemoSession } from './writer.js';
import { prepareCheckLoad } from './check-load.js';
import { seedDemoHotels } from './hotel.js';
import { seedDemoCoupons } from './coupons.js';
import { foldNextChecks, markFoldedByCaller } from '../../modules/statistics/index.js';
import { FAST_LOAD_REPLAYED_TRIGGERS, rebuildHolderTables } from './replayed-triggers.js';

/**
 * The demo data set: organisation and catalog (organisation.ts, scenic.ts, card-models.ts), cards and
 * their holders (cards.ts, card-rows.ts, people.ts), and about `scale` check-ins streamed day by day
 * (checks.ts), all from a seeded PRNG (prng.ts) and the reference date: the same seed, date and time
 * zone give the same rows on PGlite and PostgreSQL (password hashes aside: argon2 salts them).
 *
 * Everything is written in ONE transaction (writer.ts), check-ins included, on both backends: a
 * failure or an interrupted run leaves nothing behind, and the safety check (safety.ts) runs inside
 * it under an advisory lock. Ids are assigned here from each table's high-water mark and the identity
 * sequences are moved past them before commit; the run is recorded in demo_dataset.
 *
 * Fast load (PostgreSQL superuser or PGlite, and no user triggers on the tables but the statistics'
 * triggers, whose work is redone set-wise): per-row foreign-key triggers are off for the transaction (session_replication_role
 * = replica), the plain indexes of the bulk tables are dropped and rebuilt after their load, the holder
 * table is rebuilt from the holders written, and every foreign key of every table written is then
 * checked set-wise; a violation aborts the whole transaction. Constraints stay as they are. The
 * check-ins of a fast load into PostgreSQL go in COPY's binary format, straight into card_check's
 * month partitions made for the span, with FREEZE (ADR 0103; check-load.ts).
 * Otherwise the rows go through the triggers (same rows, a fifth of the speed).
 */
export interface DemoProgress {
  phase: 'catalog' | 'members' | 'cards' | 'bindings' | 'checks' | 'indexes' | 'validate' | 'done';
  done: number;
  total: number;
}

export interface DemoOptions {
  /** about how many check-ins to make (default 100 000) */
  scale?: number;
  seed?: number;
  /** the reference "now" (its day is used); default today in the service time zone */
  now?: Date;
  /** PostgreSQL only: the database's URL, for the generator's own COPY connection */
  databaseUrl?: string | null;
  /** service time zone; default process.env.TZ */
  tz?: string;
  /**
   * auto: when the session is a superuser and the tables carry no triggers of their own, load with
   * per-row foreign-key triggers off (session_replication_role = replica), rebuild card_check's plain
   * indexes after the load and check every foreign key set-wise before commit; triggers: always load
   * through the per-row triggers. Both write the same rows.
   */
  loadMode?: 'auto' | 'triggers';
  onProgress?: (p: DemoProgress) => void;
}

export interface DemoStats {
  seed: number;
  scale: number;
  now: string;
  backend: 'postgres' | 'pglite';
  loadMode: 'fast' | 'triggers';
  /** how the statistics' roll-up was made: counted while writing the checks, or folded from them */
  rollup: 'counted' | 'folded';
  /** how the check-ins went in: COPY's binary format straight into card_check's partitions, or text */
  checkFormat: 'binary' | 'text';
  rows: Record<string, number>;
  checkRows: number;
  /** seconds for the whole run, and for the check-in phase (write, index rebuild, FK check) */
  seconds: number;
  checkSeconds: number;
  checkRate: number;
  /** seconds per step, in the order run (what a bench prints to see where the time goes) */
  steps: Record<string, number>;
}

export type DemoResult =
  { status: 'created'; message: string; stats: DemoStats } | { status: 'exists' | 'refused'; message: string };

const FRESH = 'Use a fresh DATA_DIR or database for a new demo data set.';
/** Every table the generator writes (their foreign keys are checked after a trigger-less load). */
const WRITTEN_TABLES = [
  ...ID_TABLES,
  'admin_user',
  'user_role',
  'role',
  'card_model_price_history',
  ...BANK_DEMO_TABLES,
] as const;

export async function generateDemoData(database: Database, opts: DemoOptions = {}): Promise<DemoResult> {
  const started = performance.now();
  const scale = opts.scale ?? DEFAULT_SCALE;
  const seed = opts.seed ?? DEFAULT_SEED;
  if (!Number.isSafeInteger(scale) || scale < 0 || scale > 2_000_000_000)
    throw new Error(`scale must be a whole number from 0 to 2 000 000 000, got ${scale}`);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 2_147_483_647)
    throw new Error(`seed must be a whole number from 0 to 2147483647, got ${seed}`);
  const now = startOfLocalDay(opts.now ?? new Date());
  const tz = opts.tz ?? process.env.TZ ?? 'Asia/Shanghai';
  const progress = opts.onProgress ?? (() => {});
  const steps: Record<string, number> = {};
  let lapStart = started;
  const lap = (step: string) => {
    const t = performance.now();
    steps[step] = (steps[step] ?? 0) + (t - lapStart) / 1000;
    lapStart = t;
  };
  const passwordHash = await hashPassword(DEMO_PASSWORD);

  return withDemoSession(database, opts.databaseUrl ?? null, tz, async (session) => {
    const { exec } = session;
    await lockDemoSeeding(exec);
    const verdict = await assessDatabase(exec);
    if (verdict.kind === 'exists') {
      const d = verdict.dataset;
      return {
        status: 'exists',
        message: `Demo data is already here (seed ${d.seed}, scale ${d.scale}, ${d.checkRows} check-ins); nothing written. ${FRESH}`,
      };
    }
    if (verdict.kind === 'refused')
      return { status: 'refused', message: `Refusing to write demo data: ${verdict.reason}. ${FRESH}` };

    const bases = await idBases(exec);
    const ids = new IdAllocator(bases);
    const days = daysBetween(addMonths(now, -historyMonths(scale)), now);
    const org = buildOrganisation(ids);
    const scenic = buildScenicCatalog(ids, org, passwordHash);
    const cardModels = buildCardModels(ids, org, scenic.spots, { first: days[0].year, last: now.getFullYear() });
    const conflict = await loginConflict(
      exec,
      org.staff.map((s) => s.username),
      scenic.checkerMobiles,
    );
    if (conflict) return { status: 'refused', message: `Refusing to write demo data: ${conflict}. ${FRESH}` };

    const fast =
      opts.loadMode !== 'triggers' && (await canLoadWithoutTriggers(exec, WRITTEN_TABLES, FAST_LOAD_REPLAYED_TRIGGERS));
    if (fast) {
      await setReplicationRole(exec, true);
      // PGlite's WebAssembly heap is small; a PostgreSQL server can sort in more memory.
      // One parallel worker per index build: the leader and the worker keep both cores of a small
      // server busy (ADR 0103).
      if (session.kind === 'postgres') await setBulkMemory(exec, '1024MB', 1);
      else await setBulkMemory(exec, '64MB');
    }
    const rows: Record<string, number> = {};
    // The fast load into PostgreSQL writes its bulk rows in COPY's binary format (ADR 0103); the load
    // through triggers keeps the text format, so the generator test compares the two encodings.
    const binaryBulk = fast && session.kind === 'postgres';
    // `binary`: where binary COPY goes, or null for text.
    const write = async (t: TableRows, phase: DemoProgress['phase'], binary?: BinaryTarget | null) => {
      let done = 0;
      const target =
        binary === null ? undefined : (binary ?? (binaryBulk ? { tableOf: () => t.table, freeze: false } : undefined));
      const n = await session.write(t, (k) => progress({ phase, done: (done += k), total: t.total ?? done }), target);
      rows[t.table] = (rows[t.table] ?? 0) + n;
    };
    // Price history from the first day any demo price period covers.
    const historyFrom = new Date(days[0].year, 0, 1);
    for (const t of [...org.tables, ...scenic.tables, ...cardModels.tables]) {
      if (REPOSITORY_TABLES.has(t.table))
        rows[t.table] = (rows[t.table] ?? 0) + (await writeThroughRepositories(exec, t, historyFrom));
      else await write(t, 'catalog');
    }
    const roleIds = await demoRoleIds(exec, {
      ...DEMO_ROLES,
      super_admin: { name: 'Super administrator', permissions: ['*'] },
    });
    const staffIds = await insertDemoStaff(exec, org.staff, passwordHash, roleIds);
    rows.admin_user = org.staff.length;
    lap('catalog and staff');

    const plan = planCards({
      seed,
      days,
      now,
      count: Math.max(MIN_CARDS, Math.round(scale / CHECKS_PER_CARD)),
      firstCardId: ids.peek('card'),
      firstMemberId: ids.peek('member'),
      existingDemoMemberId: await findMemberIdByOpenId(exec, DEMO_MEMBER_OPEN_ID),
    });
    ids.reserve('card', plan.count);
    ids.reserve('member', plan.newMembers);
    const holders: HolderContext = {
      seed,
      plan,
      models: cardModels.models,
      org,
      demoOpenId: DEMO_MEMBER_OPEN_ID,
      activeBy: staffIds.get(DEMO_PLATFORM_USER) ?? null,
      referenceYear: now.getFullYear(),
      firstBindingId: ids.reserve('card_binding', plan.boundCount),
    };
    // Bulk tables: their plain indexes are rebuilt once after the load rather than grown row by row.
    const holderIndexes = fast ? await dropPlainIndexes(exec, ['member', 'card', 'card_binding']) : [];
    await write(memberRows(holders), 'members');
    await write(cardRows(holders), 'cards');
    await write(bindingRows(holders), 'bindings');
    lap('members, cards, bindings: write');
    await rebuildIndexes(exec, holderIndexes);
    lap('members, cards, bindings: indexes');
    for (const t of await writeBankDemo(exec, {
      org,
      models: cardModels.models,
      ids,
      passwordHash,
      soldCards: plan.count,
      now,
    }))
      await write(t, 'cards');
    lap('bank demo');
    // The portrait's holder table and the member tally, whose triggers the fast load skipped, from the
    // holders just written.
    if (fast) await rebuildHolderTables(exec);
    lap('holders');

    const checkStart = performance.now();
    const tally: CheckTally = { rows: 0, lastId: 0 };
    const indexes = fast ? await dropPlainIndexes(exec, ['card_check']) : [];
    // The fast load into PostgreSQL counts the checks' roll-up as it makes them and COPYs it; PGlite
    // takes rows as SQL literals, slower than folding them itself (100k checks: 1.4 against 0.8 s),
    // and the load through triggers folds them too.
    const rollup = fast && session.kind === 'postgres' ? new CheckRollup(plan, cardModels.models) : undefined;
    const firstCheckId = ids.peek('card_check');
    const checks = checkRows(
      {
        seed,
        days,
        now,
        target: scale,
        plan,
        models: cardModels.models,
        firstCheckId,
        referenceYear: now.getFullYear(),
        rollup,
      },
      tally,
    );
    const binary = await prepareCheckLoad(exec, checks, { first: new Date(days[0].start), now }, binaryBulk);
    lap('checks: partitions');
    await write(checks, 'checks', binary ?? null);
    lap('checks: write');
    if (indexes.length) progress({ phase: 'indexes', done: 0, total: indexes.length });
    await rebuildIndexes(exec, indexes);
    lap('checks: indexes');
    if (fast) {
      progress({ phase: 'validate', done: 0, total: 1 });
      await setReplicationRole(exec, false);
      await assertForeignKeys(session, ['card_check']);
    }
    lap('checks: foreign keys');
    // The statistics' check roll-up (check-rollup.ts) takes the loaded checks now, in this transaction,
    // rather than leaving them to its job; card_check is held in SHARE mode so no check-in of another
    // session can hold an id below the mark. The fast load writes the roll-up it counted (rollup.ts),
    // exact only when the generated checks are all there is; the load through triggers folds them.
    await sql`lock table card_check in share mode`.execute(exec);
    const {
      rows: [lastCheck],
    } = await sql<{ id: string | number | null }>`select max(id) as id from card_check`.execute(exec);
    // The roll-up is empty here: its plain indexes are built once after the fold rather than grown row
    // by row (1M checks: the fold 7.6 s → 6.0 s + 0.4 s of index builds).
    const rollupIndexes = fast ? await dropPlainIndexes(exec, ['stat_check_rollup', 'stat_card_use']) : [];
    if (rollup) {
      if (Number(lastCheck?.id ?? 0) !== (tally.rows ? tally.lastId : 0))
        throw new Error('card_check holds check-ins the generator did not make');
      for (const t of rollup.tables(org)) await write(t, 'checks');
      await markFoldedByCaller(exec, firstCheckId, Number(lastCheck?.id ?? 0));
    } else await foldNextChecks(exec, Number(lastCheck?.id ?? 0), null);
    lap('statistics fold');
    await rebuildIndexes(exec, rollupIndexes);
    lap('statistics indexes');
    const checkSeconds = (performance.now() - checkStart) / 1000;
    if (fast)
      await assertForeignKeys(
        session,
        WRITTEN_TABLES.filter((t) => t !== 'card_check'),
      );
    lap('other foreign keys');

    rows.hotel_order = await seedDemoHotels(exec, { seed, scale, now, org });
    rows.coupon_template = await seedDemoCoupons(exec, { seed, now, org, scenic });
    await advanceSequences(exec);
    const max = await businessMaxIds(exec);
    await insertDemoDataset(exec, {
      seed,
      scale,
      maxMerchantId: max.merchant ?? 0,
      maxCardId: max.card ?? 0,
      maxCheckId: max.check ?? 0,
      checkRows: tally.rows,
    });
    lap('hotels, coupons, sequences');
    // Planner statistics of what was just loaded: autovacuum would come to each table minutes later (to
    // a partitioned parent never), and until then the statistics plan over tables they think empty.
    await analyzeTables(exec, WRITTEN_TABLES);
    lap('planner statistics');
    progress({ phase: 'done', done: 1, total: 1 });
    const seconds = (performance.now() - started) / 1000;
    return {
      status: 'created',
      message: `Demo data set made: ${tally.rows} check-ins, ${plan.count} cards, ${plan.newMembers} members (seed ${seed}, reference date ${formatDay(now)}).`,
      stats: {
        seed,
        scale,
        now: formatDay(now),
        backend: session.kind,
        loadMode: fast ? 'fast' : 'triggers',
        rollup: rollup ? 'counted' : 'folded',
        checkFormat: binary ? 'binary' : 'text',
        rows,
        checkRows: tally.rows,
        seconds,
        checkSeconds,
        checkRate: checkSeconds > 0 ? tally.rows / checkSeconds : 0,
        steps,
      },
    };
  });
}

async function assertForeignKeys(session: DemoSession, tables: readonly string[]): Promise<void> {
  const violated = await violatedForeignKeys(session.exec, tables);
  if (violated.length) throw new Error(`demo data breaks foreign keys ${violated.join(', ')}; nothing was written`);
}
