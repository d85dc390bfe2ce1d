import {
  PostgresDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type PostgresDialectConfig,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { readContext, type ReadContext } from './read-context.js';
import { isPgTimeout } from './pg-errors.js';
import type { ReplicaLag, SkipReason } from './replica-lag.js';

/** What the routing did, for /metrics: reads of replica routes by where they ran, and why not the replica. */
export class RoutingCounts {
  readonly reads = { primary: 0, replica: 0 };
  readonly skips: Record<SkipReason, number> = { lag: 0, unreachable: 0, 'own-write': 0, 'recent-write': 0 };
}

type Target = 'primary' | 'replica';

// Leading comments (the prepared-statement marker, prepared.ts) and blanks before the first word.
const LEADING = /^(?:\s+|\/\*[\s\S]*?\*\/|--[^\n]*\n)*/;
const READ_START = /^(?:select|with)\b/i;
// Anything that could write, lock or advance a sequence keeps a raw statement on the primary.
const MAY_WRITE =
  /\b(?:insert|update|delete|merge|truncate|copy|nextval|setval|pg_advisory\w*|set_config|for\s+(?:update|share|no\s+key\s+update|key\s+share))\b/i;

/**
 * A statement the replica can answer: a Kysely select, or raw SQL that starts as a read and names
 * nothing that writes or locks. Everything else (and every transaction) runs on the primary.
 */
export function isReplicaReadable(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  if (kind === 'SelectQueryNode') return !MAY_WRITE.test(query.sql);
  if (kind !== 'RawNode') return false;
  const text = query.sql.replace(LEADING, '');
  return READ_START.test(text) && !MAY_WRITE.test(text);
}

/**
 * The replica's answer was lost with its connection (stopped, unreachable, silent) or cancelled by
 * replay (conflict with recovery): the read is retried on the primary.
 */
function replicaFailed(err: unknown): { gone: boolean } | null {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === '40001' || code === '40P01') return { gone: false };
  if (isPgTimeout(err)) return { gone: true };
  if (
    /^(?:08|57P)/.test(code) ||
    /^E(?:CONNREFUSED|CONNRESET|PIPE|HOSTUNREACH|NETUNREACH|TIMEDOUT|NOTFOUND)$/.test(code)
  )
    return { gone: true };
  const msg = typeof e?.message === 'string' ? e.message : '';
  if (/^Connection terminated|^Client has encountered a connection error|not queryable/.test(msg))
    return { gone: true };
  return null;
}

class Router {
  constructor(
    readonly lag: ReplicaLag,
    readonly counts: RoutingCounts,
  ) {}

  /** Where one statement outside a transaction runs (docs/adr/0101-reads-on-a-streaming-replica.md). */
  async target(query: CompiledQuery): Promise<Target> {
    const ctx = readContext();
    if (!ctx) return 'primary';
    if (!isReplicaReadable(query)) {
      await this.wrote(ctx);
      return 'primary';
    }
    if (ctx.reads === 'primary') return 'primary';
    const skip = await this.skipReason(ctx);
    if (skip) {
      this.counts.skips[skip] += 1;
      this.counts.reads.primary += 1;
      return 'primary';
    }
    this.counts.reads.replica += 1;
    return 'replica';
  }

  /** A write, or a transaction: this request's reads stay on the primary, and the session's for the lag bound. */
  async wrote(ctx: ReadContext | undefined): Promise<void> {
    if (!ctx) return;
    ctx.wrote = true;
    if (ctx.session !== null && ctx.sessions !== null) await (ctx.marking ??= ctx.sessions.mark(ctx.session));
  }

  private async skipReason(ctx: ReadContext): Promise<SkipReason | null> {
    if (ctx.wrote) return 'own-write';
    if (!this.lag.usable) return this.lag.state === 'lag' ? 'lag' : 'unreachable';
    if (ctx.session !== null && ctx.sessions !== null) {
      if (await (ctx.wroteLately ??= ctx.sessions.wroteLately(ctx.session))) return 'recent-write';
    }
    return null;
  }

  /** A replica read that failed with its connection: counted, and the read goes to the primary. */
  replicaLost(gone: boolean): void {
    if (gone) this.lag.markUnreachable();
    this.counts.reads.replica -= 1;
    this.counts.reads.primary += 1;
    this.counts.skips.unreachable += 1;
  }
}

/**
 * One Kysely connection that holds a pooled connection of the primary or of the replica, chosen per
 * statement; pinned to the primary once a transaction begins on it.
 */
class RoutingConnection implements DatabaseConnection {
  private inner: { target: Target; conn: DatabaseConnection } | null = null;
  inTransaction = false;

  constructor(private readonly driver: RoutingDriver) {}

  async use(target: Target): Promise<DatabaseConnection> {
    if (this.inner?.target === target) return this.inner.conn;
    await this.release();
    const conn = await this.driver.pool(target).acquireConnection();
    this.inner = { target, conn };
    return conn;
  }

  async release(): Promise<void> {
    const inner = this.inner;
    this.inner = null;
    if (inner) await this.driver.pool(inner.target).releaseConnection(inner.conn);
  }

  get primaryConnection(): DatabaseConnection {
    if (this.inner?.target !== 'primary') throw new Error('the transaction has no primary connection');
    return this.inner.conn;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return this.primaryConnection.executeQuery<R>(query);
    const target = await this.driver.router.target(query);
    if (target === 'primary') return (await this.use('primary')).executeQuery<R>(query);
    try {
      return await (await this.use('replica')).executeQuery<R>(query);
    } catch (err) {
      const failed = replicaFailed(err);
      if (!failed) throw err;
      this.driver.router.replicaLost(failed.gone);
      return (await this.use('primary')).executeQuery<R>(query);
    }
  }

  // eslint-disable-next-line require-yield -- nothing streams: exports read in keyset batches (xlsx-export.ts)
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not routed between primary and replica');
  }
}

/** The driver behind `db` when a replica is configured: two PostgreSQL drivers, one routing between them. */
class RoutingDriver implements Driver {
  readonly router: Router;

  constructor(
    private readonly primary: Driver,
    private readonly replica: Driver,
    lag: ReplicaLag,
    counts: RoutingCounts,
  ) {
    this.router = new Router(lag, counts);
  }

  pool(target: Target): Driver {
    return target === 'primary' ? this.primary : this.replica;
  }

  async init(): Promise<void> {
    await Promise.all([this.primary.init(), this.replica.init()]);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutingConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as RoutingConnection;
    await this.router.wrote(readContext());
    const conn = await c.use('primary');
    c.inTransaction = true;
    await this.primary.beginTransaction(conn, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RoutingConnection;
    c.inTransaction = false;
    await this.primary.commitTransaction(c.primaryConnection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RoutingConnection;
    c.inTransaction = false;
    await this.primary.rollbackTransaction(c.primaryConnection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.primary.savepoint!((connection as RoutingConnection).primaryConnection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.primary.rollbackToSavepoint!((connection as RoutingConnection).primaryConnection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.primary.releaseSavepoint!((connection as RoutingConnection).primaryConnection, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutingConnection).release();
  }

  async destroy(): Promise<void> {
    await Promise.all([this.primary.destroy(), this.replica.destroy()]);
  }
}

/** PostgreSQL with reads routed to a streaming replica; everything else as PostgresDialect. */
export class ReplicaRoutingDialect extends PostgresDialect {
  constructor(
    primary: PostgresDialectConfig,
    private readonly replica: PostgresDialectConfig,
    private readonly lag: ReplicaLag,
    private readonly counts: RoutingCounts,
  ) {
    super(primary);
  }

  override createDriver(): Driver {
    return new RoutingDriver(
      super.createDriver(),
      new PostgresDialect(this.replica).createDriver(),
      this.lag,
      this.counts,
    );
  }
}
