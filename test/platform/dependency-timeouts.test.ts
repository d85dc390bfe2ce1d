import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { isPgTimeout } from '../../src/platform/db/pg-errors.js';
import { toErrorAnswer } from '../../src/platform/http/error-handler.js';
import { openStore, type Store } from '../../src/platform/store/index.js';
import { createRedisStore } from '../../src/platform/store/redis-store.js';
import { hostPort, TcpProxy, viaPort } from '../cluster/cluster.js';
import { TEST_TZ } from '../helpers/test-env.js';
import { testStorePrefix } from '../helpers/store-prefix.js';
import { failure, UNAVAILABLE } from '../helpers/failure.js';

const PG_URL = process.env.DATABASE_URL || null;
const REDIS_URL = process.env.REDIS_URL || null;
const QUERY_MS = 300;
const CONNECT_MS = 300;
/** statement_timeout is QUERY_MS; the client's read timeout comes 1 s later (database.ts) */
const READ_MS = QUERY_MS + 1_000;

const select1 = (db: Database['db']) => sql`select 1 as one`.execute(db);

// The pool's bounds (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS) against a real server,
// behind a proxy that can go silent. PGlite runs in process: no network, no timeouts.
describe.skipIf(!PG_URL)('PostgreSQL timeouts (skipped unless DATABASE_URL is set)', () => {
  let proxy: TcpProxy;
  let database: Database;

  beforeAll(async () => {
    proxy = await TcpProxy.start(hostPort(PG_URL!, 5432));
  });
  afterEach(async () => {
    proxy.restore();
    await database?.close();
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const open = (poolMax = 2) =>
    (database = openDatabase({
      databaseUrl: viaPort(PG_URL!, proxy.port),
      dataDir: '.test-cache',
      tz: TEST_TZ,
      poolMax,
      connectTimeoutMs: CONNECT_MS,
      queryTimeoutMs: QUERY_MS,
    }));

  it('a statement over the bound is cancelled by the server (503) and its connection stays usable; the unbounded Db is spared', async () => {
    const { db, unbounded } = open(1);
    const { err, ms } = await failure(sql`select pg_sleep(2)`.execute(db));
    expect((err as { code?: string }).code).toBe('57014');
    expect(ms).toBeLessThan(READ_MS);
    expect(toErrorAnswer(err)).toEqual(UNAVAILABLE);
    expect((await select1(db)).rows).toEqual([{ one: 1 }]);
    expect(proxy.accepted).toBeGreaterThanOrEqual(1);
    // migrations and the roll-up: no statement timeout, no read timeout
    await sql`select pg_sleep(${(READ_MS + 200) / 1000})`.execute(unbounded);
  });

  it('a silent server: the read timeout answers 503, the connection is discarded, and a transaction fails with the timeout too', async () => {
    const { db } = open(1);
    await select1(db); // one pooled connection, open before the silence
    proxy.blackhole();
    const read = await failure(select1(db));
    expect((read.err as Error).message).toBe('Query read timeout');
    expect(read.ms).toBeGreaterThanOrEqual(READ_MS - 50);
    expect(read.ms).toBeLessThan(READ_MS + 500);
    expect(toErrorAnswer(read.err)).toEqual(UNAVAILABLE);

    proxy.restore();
    const before = proxy.accepted;
    // With the timed-out connection back in the pool this would wait behind its lost answer again.
    const t0 = performance.now();
    expect((await select1(db)).rows).toEqual([{ one: 1 }]);
    // waiting behind the lost answer would take READ_MS; a new connection on a loaded CI machine can take more than QUERY_MS
    expect(performance.now() - t0).toBeLessThan(READ_MS - 300);
    expect(proxy.accepted).toBe(before + 1);

    proxy.blackhole();
    // Kysely rolls back after the failed statement: the rollback fails with the same timeout, at once.
    const trx = await failure(db.transaction().execute(async (t) => select1(t)));
    expect(isPgTimeout(trx.err)).toBe(true);
    expect(trx.ms).toBeLessThan(READ_MS + 500);
  });

  it("a silent server at connection time: the connect timeout answers 503, and so does /readyz's ping, within it", async () => {
    const d = open(1);
    proxy.blackhole();
    const conn = await failure(select1(d.db));
    expect(isPgTimeout(conn.err)).toBe(true);
    expect(conn.ms).toBeLessThan(CONNECT_MS + 500);
    expect(toErrorAnswer(conn.err)).toEqual(UNAVAILABLE);
    const ping = await failure(d.ping());
    expect(ping.ms).toBeLessThan(CONNECT_MS + 500);
    proxy.restore();
    await d.ping();
  });

  it('a transaction left idle longer than the bound is ended by the server: its locks go, the request answers 503, the pool recovers', async () => {
    const { db } = open(2);
    const { err } = await failure(
      db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(4242)`.execute(trx);
        await new Promise((r) => setTimeout(r, QUERY_MS + 400));
        await select1(trx);
      }),
    );
    expect(toErrorAnswer(err)).toEqual(UNAVAILABLE);
    // the lock went with the session: another transaction takes it at once
    const t0 = performance.now();
    await db.transaction().execute((trx) => sql`select pg_advisory_xact_lock(4242)`.execute(trx));
    // a lock still held would fail this with the statement timeout; the bound leaves room for a new connection
    expect(performance.now() - t0).toBeLessThan(READ_MS - 300);
    expect((await select1(db)).rows).toEqual([{ one: 1 }]);
  });

  it('the bound is per statement: keyset batches (as exports read) may together run far longer', async () => {
    const { db } = open(1);
    const t0 = performance.now();
    // each batch well within the bound, the whole read four times over it
    for (let i = 0; i < 12; i += 1) await sql`select pg_sleep(0.1), ${i}::int as batch`.execute(db);
    expect(performance.now() - t0).toBeGreaterThan(4 * QUERY_MS);
  });
});

// Redis that stops answering: commandTimeout (5 s, redis-store.ts) fails each command, and
// socketTimeout drops the silent connection so the client reconnects once Redis answers again.
describe.skipIf(!REDIS_URL)('Redis gone silent (skipped unless REDIS_URL is set)', () => {
  let proxy: TcpProxy;
  let store: Store;

  afterAll(async () => {
    await store?.close();
    await proxy?.close();
  });

  it('a command answers 503 within the command timeout, and the next ones work once Redis answers again', async () => {
    proxy = await TcpProxy.start(hostPort(REDIS_URL!, 6379));
    store = await openStore(viaPort(REDIS_URL!, proxy.port), testStorePrefix('silent'));
    await store.set('k', 'v', 60);
    proxy.blackhole();
    const silent = await failure(store.get('k'));
    expect(silent.ms).toBeLessThan(6_500);
    expect(toErrorAnswer(silent.err)).toEqual(UNAVAILABLE);
    proxy.restore();
    // On the silenced connection this would time out for good. The client drops it after 5 s of
    // silence; a reconnection attempted while still silent is itself dropped after 5 s, so service
    // is back at most ~5 s after Redis answers again.
    const t0 = performance.now();
    let value: string | null = null;
    while (value === null && performance.now() - t0 < 10_000) {
      value = await store.get('k').catch(() => null);
      if (value === null) await new Promise((r) => setTimeout(r, 50));
    }
    expect(value).toBe('v');
    const backMs = performance.now() - t0;
    console.info(
      `[timeouts] Redis silent: the command failed after ${Math.round(silent.ms)} ms; back ${Math.round(backMs)} ms after the silence ended`,
    );
    // 5 s of silence at most, and room for a machine busy with the rest of CI
    expect(backMs).toBeLessThan(7_500);
  });

  it('a silent subscriber is noticed by its heartbeat: it reconnects, the caches are told, and messages flow again', async () => {
    const subProxy = await TcpProxy.start(hostPort(REDIS_URL!, 6379));
    const silenceMs = 400;
    const prefix = testStorePrefix('silent-sub');
    const listener = await createRedisStore(viaPort(REDIS_URL!, subProxy.port), prefix, {
      silenceMs,
      heartbeatMs: 200,
    });
    const sender = await openStore(REDIS_URL!, prefix);
    try {
      const got: string[] = [];
      let reconnects = 0;
      let disconnects = 0;
      listener.onReconnect(() => (reconnects += 1));
      listener.onDisconnect(() => (disconnects += 1));
      await listener.subscribe('bus', (m) => got.push(m));
      subProxy.blackhole();
      await sender.publish('bus', 'lost');
      // without a heartbeat nothing is owed by the subscriber, and nothing would ever end its silence
      await new Promise((r) => setTimeout(r, silenceMs + 400));
      subProxy.restore();
      const t0 = performance.now();
      while (reconnects === 0 && performance.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
      expect(reconnects).toBe(1);
      // told of the loss before the return (sessions kept in memory stop being kept meanwhile)
      expect(disconnects).toBeGreaterThanOrEqual(1);
      expect(got).toEqual([]);
      // resubscribed: a message published now arrives
      const t1 = performance.now();
      while (!got.includes('after') && performance.now() - t1 < 2_000) {
        await sender.publish('bus', 'after');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(got).toContain('after');
    } finally {
      await listener.close();
      await sender.close();
      await subProxy.close();
    }
  });
});
