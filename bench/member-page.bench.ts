/**
 * queryMemberPage on a million members: each filter and scope of the page (the page query and the count
 * that paginate runs over the filtered set, or the member tally's sum where the service reads that), timed against a baseline measured in the same run (one
 * member read by primary key, the cheapest query the table answers), with the plan PostgreSQL chose.
 *
 *   node --import tsx bench/member-page.bench.ts [--members N] [--pglite] [--verbose] [--keep NAME]
 *
 * --keep NAME fills database NAME once and keeps it, so later runs with the same NAME skip the fill
 * (while trying indexes). --verbose prints every plan whole, with EXPLAIN ANALYZE.
 * DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/postgres); the bench creates
 * tc_bench_<random> there and drops it at the end. --pglite runs on an in-memory PGlite instead.
 * Prints figures, no assertions on time.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Compilable } from 'kysely';
import pg from 'pg';

process.env.TZ ??= 'Asia/Shanghai';
const { openDatabase } = await import('../src/platform/db/database.js');
const { migrateToLatest } = await import('../src/platform/db/migrate.js');
const { memberPageQuery, totalFromTally } = await import('../src/modules/member/member-profile.repository.js');
const { countLivingMembers } = await import('../src/modules/member/member-tally.repository.js');
const { cardCount, fillMembers } = await import('./member-fill.js');
type Db = import('../src/platform/db/database.js').Db;
type Scope = import('../src/platform/auth/permissions.js').Scope;
type Filter = import('../src/modules/member/member-profile.repository.js').MemberPageFilter;

const args = process.argv.slice(2);
const membersArg = args.indexOf('--members');
const MEMBERS = membersArg >= 0 ? Number(args[membersArg + 1]) : 1_000_000;
const CARDS = cardCount(MEMBERS);
const PGLITE = args.includes('--pglite');
const VERBOSE = args.includes('--verbose');
const keepArg = args.indexOf('--keep');
const KEEP = keepArg >= 0 ? args[keepArg + 1] : null;
const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = 7;

async function withDatabase<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  if (PGLITE) {
    const database = openDatabase({ databaseUrl: null, dataDir: '/tmp', tz: process.env.TZ!, inMemory: true });
    try {
      return await fn(database.db);
    } finally {
      await database.close();
    }
  }
  const name = KEEP ?? `tc_bench_${randomBytes(4).toString('hex')}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`--keep takes a plain database name, not ${name}`);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount;
  if (!exists) await admin.query(`create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = '/' + name;
  const database = openDatabase({ databaseUrl: u.toString(), dataDir: '/tmp', tz: process.env.TZ!, poolMax: 2 });
  try {
    return await fn(database.db);
  } finally {
    await database.close();
    if (!KEEP) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

/** The plan's node lines without costs, and whether it reads the whole member table. */
async function plan(db: Db, q: Compilable): Promise<{ lines: string[]; fullScan: boolean }> {
  const c = q.compile();
  const r = await sql<{
    'QUERY PLAN': string;
  }>`explain ${sql.raw(VERBOSE ? '(analyze, costs off)' : '(costs off)')} ${sql.raw(c.sql.replace(/\$(\d+)/g, (_, i) => literal(c.parameters[Number(i) - 1])))}`.execute(
    db,
  );
  const lines = r.rows.map((x) => x['QUERY PLAN']);
  return { lines, fullScan: lines.some((l) => /Seq Scan on member\b/.test(l)) };
}

function literal(v: unknown): string {
  if (v instanceof Date) return `'${v.toISOString()}'::timestamptz`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return `'${String(v).replace(/'/g, "''")}'`;
}

const none: Filter = { mobile: null, created: null, status: null, channel: null };
const platform: Scope = { kind: 'platform' };

await withDatabase(async (db) => {
  const t0 = performance.now();
  await migrateToLatest(db);
  const filled = await db.selectFrom('member').select('id').limit(1).executeTakeFirst();
  if (!filled) await fillMembers(db, MEMBERS);
  console.log(
    `member page on ${PGLITE ? 'PGlite' : 'PostgreSQL'}: ${MEMBERS.toLocaleString('en-US')} members, ${CARDS.toLocaleString('en-US')} cards (filled in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  const merchants = (await db.selectFrom('merchant').select('id').orderBy('id').execute()).map((r) => r.id);
  const smallShop = await db
    .selectFrom('shop')
    .select(['id', 'merchant_id'])
    .where('merchant_id', '=', merchants[7])
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const someMobile =
    (
      await db
        .selectFrom('member')
        .select('mobile')
        .where('id', '=', merchants.length * 1000)
        .executeTakeFirst()
    )?.mobile ?? '13000000000';
  const firstId = Number(
    (
      await db
        .selectFrom('member')
        .select(sql<number>`min(id)`.as('id'))
        .executeTakeFirstOrThrow()
    ).id,
  );

  let probe = 0;
  const baseline = await median(() =>
    db
      .selectFrom('member')
      .selectAll()
      .where('id', '=', firstId + ((probe++ * 7919) % MEMBERS))
      .execute(),
  );
  console.log(`  baseline (one member by primary key): ${baseline.toFixed(2)} ms`);

  const week = { start: new Date(2026, 3, 1), end: new Date(2026, 3, 7, 23, 59, 59) };
  const cases: Array<[string, Filter, Scope]> = [
    ['platform, no filter', none, platform],
    ['platform, mobile prefix of 7 digits', { ...none, mobile: someMobile.slice(0, 7) }, platform],
    ['platform, whole mobile', { ...none, mobile: someMobile }, platform],
    ['platform, status 0 (1%)', { ...none, status: 0 }, platform],
    ['platform, channel 8 (5%)', { ...none, channel: 8 }, platform],
    ['platform, registered within one week', { ...none, created: week }, platform],
    ['merchant selling half the cards', none, { kind: 'merchant', merchantId: merchants[0] }],
    ['merchant selling 1/38 of the cards', none, { kind: 'merchant', merchantId: merchants[7] }],
    ['shop of that merchant', none, { kind: 'shop', merchantId: smallShop.merchant_id, shopId: smallShop.id }],
    ['that merchant, status 0', { ...none, status: 0 }, { kind: 'merchant', merchantId: merchants[7] }],
  ];
  for (const [label, filter, scope] of cases) {
    const q = memberPageQuery(db, filter, scope);
    const pageQ = q.limit(10).offset(0);
    const countQ = q
      .clearSelect()
      .clearOrderBy()
      .select(sql<number>`count(*)`.as('total'));
    const tallied = totalFromTally(filter, scope);
    const count = tallied
      ? () => countLivingMembers(db, filter)
      : async () => Number((await countQ.executeTakeFirstOrThrow()).total);
    const pageMs = await median(() => pageQ.execute());
    const countMs = await median(count);
    const total = await count();
    if (tallied && total !== Number((await countQ.executeTakeFirstOrThrow()).total))
      throw new Error(`${label}: the tally disagrees with count(*)`);
    const [pagePlan, countPlan] = [await plan(db, pageQ), tallied ? null : await plan(db, countQ)];
    console.log(
      `  ${label}: ${total.toLocaleString('en-US')} rows; page ${pageMs.toFixed(1)} ms (×${(pageMs / baseline).toFixed(0)} baseline), ` +
        `${tallied ? 'tally' : 'count'} ${countMs.toFixed(1)} ms (×${(countMs / baseline).toFixed(0)})${pagePlan.fullScan || countPlan?.fullScan ? '  [reads the whole member table]' : ''}`,
    );
    const shown = (p: { lines: string[] }) =>
      VERBOSE
        ? '\n' + p.lines.join('\n')
        : p.lines
            .map((l) => l.trim())
            .slice(0, 6)
            .join(' | ');
    console.log(`      page plan:  ${shown(pagePlan)}`);
    if (countPlan) console.log(`      count plan: ${shown(countPlan)}`);
  }
});
