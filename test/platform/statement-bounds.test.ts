import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { newReadContext, runInReadContext, type RouteReads } from '../../src/platform/db/read-context.js';
import { toErrorAnswer } from '../../src/platform/http/error-handler.js';
import { hostPort, TcpProxy, viaPort } from '../cluster/cluster.js';
import { TEST_TZ } from '../helpers/test-env.js';
import { failure, UNAVAILABLE } from '../helpers/failure.js';

const PG_URL = process.env.DATABASE_URL || null;
const QUERY_MS = 300;
const REPORT_MS = 1_200;
const CONNECT_MS = 300;
/** the client gives a statement up 1 s after the server should have cancelled it (database.ts) */
const GRACE_MS = 1_000;

/** `work` as a request of a route of that kind runs it (routes.ts sets the context). */
const as = <T>(reads: RouteReads, work: () => Promise<T>) => runInReadContext(newReadContext(reads, null, null), work);
const sleep = (db: Database['db'], s: number) => sql`select pg_sleep(${s})`.execute(db);
const select1 = (db: Database['db']) => sql<{ one: number }>`select 1 as one`.execute(db);

// The bounds per kind of operation (docs/adr/0102-statement-bounds-per-kind-of-operation.md) against a
// real server, as dependency-timeouts.test.ts does for the ordinary ones. PGlite has no timeouts.
describe.skipIf(!PG_URL)('statement bounds per kind of operation (skipped unless DATABASE_URL is set)', () => {
  let proxy: TcpProxy;
  let replicaProxy: TcpProxy;
  let database: Database | null = null;

  beforeAll(async () => {
    proxy = await TcpProxy.start(hostPort(PG_URL!, 5432));
    replicaProxy = await TcpProxy.start(hostPort(PG_URL!, 5432));
  });
  afterEach(async () => {
    proxy.restore();
    replicaProxy.restore();
    await database?.close();
    database = null;
  });
  afterAll(async () => {
    await proxy?.close();
    await replicaProxy?.close();
  });

  const open = (extra: Partial<Parameters<typeof openDatabase>[0]> = {}) =>
    (database = openDatabase({
      databaseUrl: viaPort(PG_URL!, proxy.port),
      dataDir: '.test-cache',
      tz: TEST_TZ,
      poolMax: 1,
      connectTimeoutMs: CONNECT_MS,
      queryTimeoutMs: QUERY_MS,
      reportQueryTimeoutMs: REPORT_MS,
      ...extra,
    }));

  it('a report statement may run longer than an ordinary one, to its own bound; the connection returns to the ordinary bound', async () => {
    const { db } = open();
    // one connection serves both kinds in turn
    await as('report', () => sleep(db, (QUERY_MS + 400) / 1000));
    const ordinary = await failure(sleep(db, (QUERY_MS + 400) / 1000));
    expect((ordinary.err as { code?: string }).code).toBe('57014');
    expect(ordinary.ms).toBeLessThan(QUERY_MS + 400);
    const report = await failure(as('report', () => sleep(db, (REPORT_MS + 800) / 1000)));
    expect((report.err as { code?: string }).code).toBe('57014');
    expect(report.ms).toBeGreaterThanOrEqual(REPORT_MS - 50);
    expect(report.ms).toBeLessThan(REPORT_MS + 700);
    expect(toErrorAnswer(report.err)).toEqual(UNAVAILABLE);
    // page reads are ordinary statements
    expect((await failure(as('replica', () => sleep(db, (QUERY_MS + 400) / 1000)))).ms).toBeLessThan(QUERY_MS + 400);
    expect(proxy.accepted).toBe(1);
  });

  it("a report on a silent server is given up at its own bound's read timeout, not the ordinary one", async () => {
    const { db } = open();
    await select1(db);
    await as('report', () => select1(db)); // the session's bound is now the report's
    proxy.blackhole();
    const silent = await failure(as('report', () => select1(db)));
    expect((silent.err as Error).message).toBe('Query read timeout');
    expect(silent.ms).toBeGreaterThanOrEqual(REPORT_MS + GRACE_MS - 50);
    expect(silent.ms).toBeLessThan(REPORT_MS + GRACE_MS + 500);
    expect(toErrorAnswer(silent.err)).toEqual(UNAVAILABLE);
    proxy.restore();
    expect((await select1(db)).rows).toEqual([{ one: 1 }]);
  });

  it('an idle transaction is ended by the server at its own bound, not the statement bound', async () => {
    const { db } = open({ poolMax: 2, queryTimeoutMs: 5_000, idleInTransactionTimeoutMs: QUERY_MS });
    const t0 = performance.now();
    const { err } = await failure(
      db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(4343)`.execute(trx);
        await new Promise((r) => setTimeout(r, QUERY_MS + 500));
        await select1(trx);
      }),
    );
    expect(performance.now() - t0).toBeLessThan(QUERY_MS + 1_500);
    expect(toErrorAnswer(err)).toEqual(UNAVAILABLE);
    // the session and its lock are gone: another transaction takes the lock at once
    await db.transaction().execute((trx) => sql`select pg_advisory_xact_lock(4343)`.execute(trx));
    // and a transaction busy between its statements for less than the bound is left alone
    await db.transaction().execute(async (trx) => {
      await new Promise((r) => setTimeout(r, QUERY_MS / 2));
      await select1(trx);
    });
  });

  it('a silent replica: replica reads answer from the primary within the read timeout, are counted, and return to the replica once it answers', async () => {
    // The CI server is no standby: the routing takes it as a promoted replica, always fresh.
    const d = open({
      poolMax: 2,
      replica: { url: viaPort(PG_URL!, replicaProxy.port), poolMax: 1, maxLagMs: 1_000, checkEveryMs: 100 },
    });
    const replica = d.replica!;
    const until = async (ok: () => boolean) => {
      const t0 = performance.now();
      while (!ok() && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
      expect(ok()).toBe(true);
    };
    await until(() => replica.lag.usable);
    expect((await as('replica', () => select1(d.db))).rows).toEqual([{ one: 1 }]);
    expect(replica.counts.reads.replica).toBe(1);
    replicaProxy.blackhole();
    const t0 = performance.now();
    // the pooled replica connection goes silent: the read waits its read timeout, then the primary answers
    expect((await as('replica', () => select1(d.db))).rows).toEqual([{ one: 1 }]);
    expect(performance.now() - t0).toBeLessThan(QUERY_MS + GRACE_MS + 500);
    expect(replica.counts.skips.unreachable).toBeGreaterThanOrEqual(1);
    expect(replica.lag.state).toBe('unreachable');
    // skipped from now on: no waiting
    const t1 = performance.now();
    await as('replica', () => select1(d.db));
    expect(performance.now() - t1).toBeLessThan(QUERY_MS);
    expect(replica.counts.reads.primary).toBeGreaterThanOrEqual(2);
    // the lag check gives up on the silent replica within the connect bound, and keeps it skipped
    await new Promise((r) => setTimeout(r, CONNECT_MS + 300));
    expect(replica.lag.state).toBe('unreachable');

    replicaProxy.restore();
    await until(() => replica.lag.usable);
    const before = replica.counts.reads.replica;
    await as('replica', () => select1(d.db));
    expect(replica.counts.reads.replica).toBe(before + 1);
    // writes in a replica route's context never leave the primary (the CI server takes them either
    // way, so the count says it: no replica read was counted for them)
    await as('replica', () => sql`create temporary table if not exists bounds_probe (x int)`.execute(d.db));
    expect(replica.counts.reads.replica).toBe(before + 1);
  });
});
