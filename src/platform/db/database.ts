import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { CompiledQuery, Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import type { PoolConfig } from 'pg';
import type { DB } from '../../db/types.js';
import { TransactionGuard } from './transaction.js';
import { namedStatement } from './prepared.js';

export type Db = Kysely<DB>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Resolves when the database answers; rejects otherwise (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the data directory as a tarball (test snapshots). */
  dump?(): Promise<Blob>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  tz: string;
  /** PGlite only: an in-memory database (tests), optionally started from a dumped data directory. */
  inMemory?: boolean;
  loadDataDir?: Blob;
  poolMax?: number;
}

// Ids and counts are bigint in SQL but stay far below 2^53, so they travel as plain numbers;
// dates stay 'YYYY-MM-DD' strings so no time zone can shift them.
const INT8 = 20;
const DATE = 1082;
const parseInt8 = (v: string) => Number(v);
const keepText = (v: string) => v;

/** Every root Db carries the guard that makes a pool query inside its own open transaction fail fast. */
function guarded(guard: TransactionGuard, create: (plugins: [TransactionGuard]) => Db): Db {
  const db = create([guard]);
  guard.attach(db);
  return db;
}

export function openDatabase(opts: DatabaseOptions): Database {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.tz, opts.poolMax ?? 10) : openPglite(opts);
}

// The drivers are loaded when the first query needs them: a process uses one of the two, and
// loading neither until then lets the app be built while the database starts.
function openPostgres(url: string, tz: string, max: number): Database {
  const createPool = async () => {
    const { default: pg } = await import('pg');
    const types: PoolConfig['types'] = {
      getTypeParser(oid: number, format?: 'text' | 'binary') {
        if (oid === INT8) return parseInt8;
        if (oid === DATE) return keepText;
        return pg.types.getTypeParser(oid, format as 'text');
      },
    } as PoolConfig['types'];
    // Queries marked with preparedAs(name) run as named statements: parsed once per connection.
    class PreparingClient extends pg.Client {
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
    (PreparingClient.prototype as unknown as { query: typeof query }).query = function (this: unknown, ...args: unknown[]) {
      const [text, values] = args;
      const name = args.length === 2 && typeof text === 'string' && Array.isArray(values) ? namedStatement(text) : null;
      return name ? query.call(this, { name, text, values }) : query.apply(this, args);
    };
    const pool = new pg.Pool({ connectionString: url, max, types, options: `-c TimeZone=${tz}`, Client: PreparingClient });
    // An idle client that loses its server must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    return pool;
  };
  const db = guarded(new TransactionGuard(), (plugins) => new Kysely<DB>({ dialect: new PostgresDialect({ pool: createPool }), plugins }));
  return {
    db,
    kind: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

function openPglite(opts: DatabaseOptions): Database {
  let dataDir: string | undefined;
  if (!opts.inMemory) {
    dataDir = path.join(opts.dataDir, 'pglite');
    mkdirSync(dataDir, { recursive: true });
  }
  let instance: Promise<PGlite> | null = null;
  const pglite = () =>
    (instance ??= import('@electric-sql/pglite').then(
      ({ PGlite }) =>
        new PGlite({
          dataDir,
          loadDataDir: opts.loadDataDir,
          parsers: { [INT8]: parseInt8, [DATE]: keepText },
          // Only in-memory (test) databases trade durability for speed; a data directory keeps every commit.
          relaxedDurability: opts.inMemory === true,
        }),
    ));
  const db = guarded(new TransactionGuard(), (plugins) => new Kysely<DB>({
    dialect: new PGliteDialect({
      pglite,
      onCreateConnection: async (conn) => {
        await conn.executeQuery(CompiledQuery.raw(`set time zone '${opts.tz.replace(/'/g, "''")}'`));
      },
    }),
    plugins,
  }));
  return {
    db,
    kind: 'pglite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      await db.destroy();
      const opened = instance && (await instance);
      if (opened && !opened.closed) await opened.close();
    },
    dump: async () => (await pglite()).dumpDataDir('none'),
  };
}
