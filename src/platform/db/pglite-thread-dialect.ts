import {
  CompiledQuery,
  PGliteAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import type { PgliteThread } from './pglite-thread.js';

/**
 * Kysely over PGlite on its own thread (pglite-thread.ts). Each acquired connection is a name for the
 * thread's one session: statements of several connections may be in flight at once and PGlite runs
 * them one at a time (Kysely's own PGlite dialect lets one statement out at a time, so the database
 * waited on the request thread between statements); a connection's transaction holds PGlite's
 * transaction lock, so other connections' statements wait for its end, as on the one connection before.
 */
export interface PgliteThreadDialectConfig {
  thread: () => Promise<PgliteThread>;
  onCreateConnection?: (connection: DatabaseConnection) => Promise<void>;
}

class ThreadAdapter extends PGliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

export class PgliteThreadDialect implements Dialect {
  constructor(private readonly config: PgliteThreadDialectConfig) {}

  createAdapter(): DialectAdapter {
    return new ThreadAdapter();
  }

  createDriver(): Driver {
    return new PgliteThreadDriver(this.config);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class PgliteThreadDriver implements Driver {
  private thread: PgliteThread | null = null;
  private nextConnection = 1;

  constructor(private readonly config: PgliteThreadDialectConfig) {}

  async init(): Promise<void> {
    this.thread = await this.config.thread();
    if (this.config.onCreateConnection)
      await this.config.onCreateConnection(new PgliteThreadConnection(this.thread, 0));
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PgliteThreadConnection(this.thread!, this.nextConnection++);
  }

  async beginTransaction(connection: PgliteThreadConnection): Promise<void> {
    await this.thread!.begin(connection.id);
  }

  async commitTransaction(connection: PgliteThreadConnection): Promise<void> {
    await this.thread!.commit(connection.id);
  }

  async rollbackTransaction(connection: PgliteThreadConnection): Promise<void> {
    await this.thread!.rollback(connection.id);
  }

  async releaseConnection(): Promise<void> {}

  // The thread is its opener's to close (openPglite's close), also when no statement ever ran.
  async destroy(): Promise<void> {}
}

class PgliteThreadConnection implements DatabaseConnection {
  constructor(
    private readonly thread: PgliteThread,
    readonly id: number,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { rows, affectedRows } = await this.thread.query(this.id, compiledQuery.sql, compiledQuery.parameters);
    return { numAffectedRows: affectedRows != null ? BigInt(affectedRows) : undefined, rows: rows as R[] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming is not supported by PGlite.');
  }
}
