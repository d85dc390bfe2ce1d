import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import type { PoolConfig, QueryConfig } from 'pg';
import type { DB } from '../../db/types.js';
import { TransactionGuard } from './transaction.js';
import { namedStatement } from './prepared.js';
import { isPgTimeout } from './pg-errors.js';
import { timestamptzReader } from './timestamp-text.js';
import { ensurePgliteDataDir } from './pglite-initdb.js';
import { lockDataDir } from './data-dir-lock.js';
import { PgliteThread } from './pglite-thread.js';
import { PgliteThreadDialect } from './pglite-thread-dialect.js';
import { readContext } from './read-context.js';
import { ReplicaLag } from './replica-lag.js';
import { ReplicaRoutingDialect, RoutingCounts } from './replica-routing.js';

export type Db = Kysely<DB>;

export interface Database {
  /** Request work: on PostgreSQL each statement is bound by the query timeout (DatabaseOptions). */
  db: Db;
  /**
   * Long work that must not be cut by a request's bound: migrations (start-up waits for another
   * instance's on the same lock) and the statistics roll-up. On PostgreSQL a small pool of its own
   * with no statement or read timeout; on PGlite (one connection) the same `db`.
   */
  unbounded: Db;
  kind: 'pglite' | 'postgres';
  /** With a streaming replica configured (DatabaseOptions.replica): its state and what the routing did. */
  replica?: ReplicaReads;
  /** Resolves when the database answers; rejects otherwise (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the data directory as a tarball (test snapshots). */
  dump?(): Promise<Blob>;
  /**
   * PGlite with a data directory only: a copy of it, taken while the service runs, into `target`
   * (a directory that must not exist yet); PgliteThread.copyDataDir says what the copy is.
   */
  copyDataDir?(target: string): Promise<void>;
}

export interface ReplicaReads {
  lag: ReplicaLag;
  counts: RoutingCounts;
  /** how long a session's reads stay on the primary after it wrote */
  sessionWritesMs: number;
}

/** A streaming replica of the PostgreSQL primary (docs/adr/0101-reads-on-a-streaming-replica.md). */
export interface ReplicaOptions {
  url: string;
  poolMax: number;
  /** further behind than this, it is skipped */
  maxLagMs: number;
  /** how often its lag is checked */
  checkEveryMs: number;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  tz: string;
  /** PGlite only: an in-memory database (tests), optionally started from a dumped data directory. */
  inMemory?: boolean;
  /** the dumped data directory (tar) to start from: its bytes, or a Blob as `dump` gives it */
  loadDataDir?: Blob | Uint8Array;
  /** PGlite with a data directory: how long a start waits for another process's lock on it to go stale (data-dir-lock.ts). */
  lockWaitMs?: number;
  poolMax?: number;
  /**
   * PostgreSQL only; unset → no bound (tests, scripts). `connectTimeoutMs` bounds the wait for a
   * connection (a new one, or a pooled one to come free) and /readyz's `select 1`; `queryTimeoutMs`
   * each statement on `db` (Config.databaseQueryTimeoutMs says how).
   */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  /**
   * The statement bound of reports (statistics and exports, marked so by their routes), when
   * `queryTimeoutMs` is set (docs/adr/0102-statement-bounds-per-kind-of-operation.md); unset → `queryTimeoutMs`.
   */
  reportQueryTimeoutMs?: number;
  /** How long a transaction may sit idle before the server ends its session; unset → `queryTimeoutMs`, 0 → off. */
  idleInTransactionTimeoutMs?: number;
  /** PostgreSQL only: reads of page, statistics and export routes go there when it is fresh enough. */
  replica?: ReplicaOptions;
}

// Ids and counts are bigint in SQL but stay far below 2^53, so they travel as plain numbers;
// dates stay 'YYYY-MM-DD' strings so no time zone can shift them.
const INT8 = 20;
const DATE = 1082;
const TIMESTAMPTZ = 1184;
const parseInt8 = (v: string) => Number(v);
const keepText = (v: string) => v;

/** Every root Db carries the guard that makes a pool query inside its own open transaction fail fast. */
function guarded(guard: TransactionGuard, create: (plugins: [TransactionGuard]) => Db): Db {
  const db = create([guard]);
  guard.attach(db);
  return db;
}

export function openDatabase(opts: DatabaseOptions): Database {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts) : openPglite(opts);
}

/**
 * The client gives up on a statement this long after the server should have cancelled it
 * (statement_timeout): a healthy server's cancel arrives first and the connection stays usable; only a
 * server or network gone silent leaves the client's read timeout to end it.
 */
export const READ_TIMEOUT_GRACE_MS = 1_000;
/** Unbounded work is one migration connection at start, then one roll-up transaction at a time. */
const UNBOUNDED_POOL_MAX = 2;

interface PoolSettings {
  url: string;
  tz: string;
  max: number;
  connectTimeoutMs?: number;
  /** the statement bounds, ordinary and of reports; unset → none */
  bounds?: StatementBounds;
  idleInTransactionTimeoutMs?: number;
}

interface StatementBounds {
  ordinaryMs: number;
  reportMs: number;
}

/** The statement bound of the request being served: its route's kind (read-context.ts). */
function boundFor(bounds: StatementBounds): number {
  return readContext()?.reads === 'report' ? bounds.reportMs : bounds.ordinaryMs;
}

// A session setting changed inside a transaction that then rolls back (to a savepoint, or whole) is
// undone with it. The bound is set before a request's first statement (its `begin`), so never inside
// one; still, after a rollback on a connection not at the ordinary bound, the bound counts as unknown
// and is set again before the next statement.
const ROLLBACK = /^\s*rollback\b/i;
const SET_STATEMENT_TIMEOUT = "select set_config('statement_timeout', $1, false)";

// The drivers are loaded when the first query needs them: a process uses one of the two, and
// loading neither until then lets the app be built while the database starts.
async function createPgPool(s: PoolSettings) {
  const { default: pg } = await import('pg');
  const readTimestamptz = timestamptzReader(pg.types.getTypeParser(TIMESTAMPTZ, 'text'));
  const types: PoolConfig['types'] = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === INT8) return parseInt8;
      if (oid === DATE) return keepText;
      if (oid === TIMESTAMPTZ && format !== 'binary') return readTimestamptz;
      return pg.types.getTypeParser(oid, format as 'text');
    },
  } as PoolConfig['types'];
  // Queries marked with preparedAs(name) run as named statements: parsed once per connection.
  class PreparingClient extends pg.Client {
    /** The timeout this connection was given up after, if it was. */
    gaveUp: Error | null = null;
    /** This session's statement_timeout; null when not known (after a rollback). */
    statementMs: number | null = s.bounds?.ordinaryMs ?? null;

    constructor(config?: ConstructorParameters<typeof pg.Client>[0]) {
      super(config);
      // A connection that breaks while checked out of the pool (a query or a transaction under way)
      // emits 'error' on its client, where the pool's idle listener is not attached: unheard, that
      // event ends the process. Its queries have already failed with the error (answered 503), and
      // the pool discards the client when it is released.
      this.on('error', () => {});
    }
  }
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  const bounds = s.bounds;
  /** One statement; `boundMs`, when not the ordinary bound, gives it the read timeout of its own bound. */
  function send(client: PreparingClient, args: unknown[], boundMs: number | null): unknown {
    const [text, values] = args;
    const plain = args.length === 2 && typeof text === 'string' && Array.isArray(values);
    const name = plain ? namedStatement(text) : null;
    const readTimeout = boundMs !== null && boundMs !== bounds?.ordinaryMs ? boundMs + READ_TIMEOUT_GRACE_MS : null;
    const result =
      plain && (name || readTimeout)
        ? query.call(client, {
            ...(name ? { name } : {}),
            text,
            values,
            ...(readTimeout ? { query_timeout: readTimeout } : {}),
          })
        : query.apply(client, args);
    if (plain && ROLLBACK.test(text) && result instanceof Promise) {
      return result.finally(() => {
        if (client.statementMs !== bounds?.ordinaryMs) client.statementMs = null;
      });
    }
    return result;
  }
  (PreparingClient.prototype as unknown as { query: typeof query }).query = function (
    this: PreparingClient,
    ...args: unknown[]
  ) {
    // A transaction's rollback after its statement timed out fails with that timeout too (not with
    // node-postgres's "not queryable"), so the request's error says what happened (app.ts skips the
    // failure's log row then, which would wait as long again).
    if (this.gaveUp && typeof args[args.length - 1] !== 'function') return Promise.reject(this.gaveUp);
    // A report's statements get the report bound: set on the session before its first one, and set
    // back before an ordinary request's (one round trip more, only when the kind changes).
    const boundMs = bounds && typeof args[args.length - 1] !== 'function' ? boundFor(bounds) : null;
    const result =
      boundMs !== null && boundMs !== this.statementMs
        ? (send(this, [SET_STATEMENT_TIMEOUT, [String(boundMs)]], null) as Promise<unknown>).then(() => {
            this.statementMs = boundMs;
            return send(this, args, boundMs);
          })
        : send(this, args, boundMs);
    if (!(result instanceof Promise)) return result;
    // After a read timeout node-postgres still waits on this connection for the lost answer, and
    // Kysely hands the client back to the pool as healthy: the next request would queue behind that
    // answer. Ending it (the socket is destroyed, as a query is still active) makes the pool discard
    // it at release, since it is ending; its own 'end' is not awaited (a silent peer never answers).
    return result.catch((err: unknown) => {
      if (isPgTimeout(err) && !this.gaveUp) {
        this.gaveUp = err as Error;
        this.end().catch(() => {});
      }
      throw err;
    });
  };
  const pool = new pg.Pool({
    connectionString: s.url,
    max: s.max,
    types,
    options: `-c TimeZone=${s.tz}`,
    Client: PreparingClient,
    connectionTimeoutMillis: s.connectTimeoutMs ?? 0,
    // Probes keep idle pooled connections alive through NAT and firewalls and, in the end (the
    // kernel's probe interval and count, ~11 min on Linux defaults), drop one whose peer vanished.
    // They bound nothing a request waits for: the timeouts do.
    keepAlive: true,
    keepAliveInitialDelayMillis: 30_000,
    // A request's transaction waiting that long between two of its statements has lost its way (or its
    // instance its network): the server ends that session rather than hold its locks indefinitely.
    ...(s.bounds
      ? { statement_timeout: s.bounds.ordinaryMs, query_timeout: s.bounds.ordinaryMs + READ_TIMEOUT_GRACE_MS }
      : {}),
    ...(s.idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: s.idleInTransactionTimeoutMs } : {}),
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}

function openPostgres(url: string, opts: DatabaseOptions): Database {
  const settings: PoolSettings = {
    url,
    tz: opts.tz,
    max: opts.poolMax ?? 10,
    connectTimeoutMs: opts.connectTimeoutMs,
    bounds: opts.queryTimeoutMs
      ? { ordinaryMs: opts.queryTimeoutMs, reportMs: opts.reportQueryTimeoutMs ?? opts.queryTimeoutMs }
      : undefined,
    idleInTransactionTimeoutMs: opts.idleInTransactionTimeoutMs ?? opts.queryTimeoutMs,
  };
  let requestPool: ReturnType<typeof createPgPool> | null = null;
  const pool = () => (requestPool ??= createPgPool(settings));
  const kysely = (dialect: PostgresDialect) =>
    guarded(new TransactionGuard(), (plugins) => new Kysely<DB>({ dialect, plugins }));
  const replica = opts.replica ? openReplica(opts.replica, settings, pool, opts.connectTimeoutMs) : null;
  const db = kysely(
    replica
      ? new ReplicaRoutingDialect({ pool }, { pool: replica.pool }, replica.reads.lag, replica.reads.counts)
      : new PostgresDialect({ pool }),
  );
  const unbounded = kysely(
    new PostgresDialect({
      pool: () =>
        createPgPool({
          ...settings,
          max: UNBOUNDED_POOL_MAX,
          bounds: undefined,
          idleInTransactionTimeoutMs: undefined,
        }),
    }),
  );
  return {
    db,
    unbounded,
    kind: 'postgres',
    ...(replica ? { replica: replica.reads } : {}),
    // Straight on the pool, so its own bound applies (a `select 1` has no reason to take long) and a
    // failed ping's client is discarded (pool.query releases it with the error). The primary's only:
    // while it answers, the service does, replica or not.
    ping: async () => {
      // (query_timeout per query is node-postgres's own, missing from @types/pg's QueryConfig)
      await (await pool()).query({ text: 'select 1', query_timeout: opts.connectTimeoutMs } as QueryConfig);
    },
    close: async () => {
      await replica?.reads.lag.stop();
      await Promise.all([db.destroy(), unbounded.destroy()]);
    },
  };
}

/** The replica's pool (bounded as the primary's), and the check of its lag, started at once. */
function openReplica(
  r: ReplicaOptions,
  primarySettings: PoolSettings,
  primaryPool: () => ReturnType<typeof createPgPool>,
  connectTimeoutMs: number | undefined,
) {
  let replicaPool: ReturnType<typeof createPgPool> | null = null;
  const pool = () => (replicaPool ??= createPgPool({ ...primarySettings, url: r.url, max: r.poolMax }));
  // A check waits no longer than a connection may take: a silent replica is found out then.
  const probe =
    (p: () => ReturnType<typeof createPgPool>) =>
    async (text: string): Promise<Array<Record<string, unknown>>> =>
      (await (await p()).query({ text, query_timeout: connectTimeoutMs ?? r.checkEveryMs * 4 } as QueryConfig)).rows;
  const lag = new ReplicaLag(probe(primaryPool), probe(pool), {
    maxLagMs: r.maxLagMs,
    everyMs: r.checkEveryMs,
  });
  lag.start();
  // A session's mark outlives the longest lag the replica is used at, and the check that finds it.
  const reads: ReplicaReads = { lag, counts: new RoutingCounts(), sessionWritesMs: r.maxLagMs + r.checkEveryMs };
  return { pool, reads };
}

function openPglite(opts: DatabaseOptions): Database {
  let dataDir: string | undefined;
  if (!opts.inMemory) {
    dataDir = path.join(opts.dataDir, 'pglite');
    mkdirSync(dataDir, { recursive: true });
  }
  let started: Promise<PgliteThread> | null = null;
  let unlock: (() => Promise<void>) | null = null;
  const thread = () =>
    (started ??= (async () => {
      if (!dataDir) return PgliteThread.start({ loadDataDir: opts.loadDataDir, inMemory: opts.inMemory === true });
      unlock = await lockDataDir(dataDir, opts.lockWaitMs);
      try {
        if (!opts.loadDataDir) await ensurePgliteDataDir(dataDir);
        return await PgliteThread.start({ dataDir, loadDataDir: opts.loadDataDir, inMemory: opts.inMemory === true });
      } catch (err) {
        await unlock();
        unlock = null;
        throw err;
      }
    })());
  const db = guarded(
    new TransactionGuard(),
    (plugins) =>
      new Kysely<DB>({
        dialect: new PgliteThreadDialect({
          thread,
          onCreateConnection: async (conn) => {
            await conn.executeQuery(CompiledQuery.raw(`set time zone '${opts.tz.replace(/'/g, "''")}'`));
          },
        }),
        plugins,
      }),
  );
  return {
    db,
    unbounded: db,
    kind: 'pglite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      await db.destroy();
      try {
        if (started) await (await started.catch(() => null))?.close();
      } finally {
        await unlock?.();
        unlock = null;
      }
    },
    dump: async () => (await thread()).dump(),
    ...(dataDir ? { copyDataDir: async (target: string) => (await thread()).copyDataDir(target) } : {}),
  };
}
