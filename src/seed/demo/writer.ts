import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DB } from '../../db/types.js';
import type { Database } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { COPY_ENCODER, SQL_ENCODER, type TableRows } from './rows.js';

/**
 * Where the demo rows go: one transaction for the whole data set, so a failure leaves nothing behind.
 *
 * - PostgreSQL: a pg.Client of our own (the project's pool does not expose COPY); the generator's
 *   repository statements run through a Kysely instance bound to that one client, so they share the
 *   transaction with the COPY streams. Each table is streamed with COPY … FROM STDIN (text format),
 *   a new COPY statement every CHUNK_ROWS rows so that per-statement trigger queues stay small, and
 *   generation overlaps with the server's work (see openCopy).
 * - PGlite: a Kysely transaction on the project's database; rows go in as multi-row INSERTs with inline
 *   literals (PGlite's COPY needs a blob handle that its Kysely dialect does not pass through).
 */

export interface DemoSession {
  kind: 'postgres' | 'pglite';
  exec: Executor;
  /** Writes every batch of the rows; returns the number of rows written. */
  write(rows: TableRows, onBatch?: (rows: number) => void): Promise<number>;
}

const CHUNK_ROWS = 250_000;
const SLICE_ROWS = 2000;
const COPY_BUFFER = 16 * 1024 * 1024;
const INSERT_ROWS = 1000;

// Same wire conventions as the project's pool: bigint as number, date as 'YYYY-MM-DD' text.
const PG_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (v: string) => Number(v);
    if (oid === 1082) return (v: string) => v;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export async function withDemoSession<T>(
  database: Database,
  databaseUrl: string | null,
  tz: string,
  fn: (s: DemoSession) => Promise<T>,
): Promise<T> {
  if (database.kind === 'pglite') {
    return database.db
      .transaction()
      .execute((trx) => fn({ kind: 'pglite', exec: trx, write: (rows, onBatch) => insertRows(trx, rows, onBatch) }));
  }
  if (!databaseUrl) throw new Error('the demo generator needs the DATABASE_URL of the PostgreSQL database');
  const client = new pg.Client({ connectionString: databaseUrl, types: PG_TYPES, options: `-c TimeZone=${tz}` });
  // A dropped connection rejects the pending query (and so the run); it must not crash the process.
  client.on('error', () => {});
  await client.connect();
  const wrapped = {
    query: (text: string, params?: readonly unknown[]) => client.query(text, params as unknown[]),
    release: () => {},
  } as unknown as PostgresPoolClient;
  const pool: PostgresPool = { connect: async () => wrapped, end: async () => {}, options: {} };
  const exec = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  try {
    await client.query('begin');
    const result = await fn({ kind: 'postgres', exec, write: (rows, onBatch) => copyRows(client, rows, onBatch) });
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    await client.end().catch(() => {});
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

// ---- PostgreSQL: COPY text format ---------------------------------------------------------------

async function copyRows(client: pg.Client, rows: TableRows, onBatch?: (n: number) => void): Promise<number> {
  const statement = `copy ${quoteIdent(rows.table)} (${rows.columns.map(quoteIdent).join(', ')}) from stdin`;
  let written = 0;
  let stream: CopyStream | null = null;
  let inStatement = 0;
  try {
    for (const chunk of rows.chunks(COPY_ENCODER, SLICE_ROWS)) {
      stream ??= openCopy(client, statement);
      await stream.write(chunk.text);
      written += chunk.rows;
      inStatement += chunk.rows;
      onBatch?.(chunk.rows);
      if (inStatement >= CHUNK_ROWS) {
        const ending = stream;
        stream = null;
        inStatement = 0;
        await ending.end();
      }
    }
    if (stream) {
      const ending = stream;
      stream = null;
      await ending.end();
    }
  } catch (err) {
    // A failure while a COPY is open (generation, progress callback): cancel the COPY so the
    // connection can roll the transaction back instead of waiting for data forever.
    if (stream) await stream.abort(err as Error);
    throw err;
  }
  return written;
}

interface CopyStream {
  write(text: string): Promise<void>;
  end(): Promise<void>;
  abort(reason: Error): Promise<void>;
}

/**
 * One COPY statement. Text is queued up to COPY_BUFFER bytes ahead of the server, and the generator
 * yields to the event loop after every slice, so the socket keeps the server busy while the next
 * rows are generated: generation (this process) and ingestion (the server) run side by side.
 */
function openCopy(client: pg.Client, statement: string): CopyStream {
  const stream = client.query(copyFrom(statement, { highWaterMark: COPY_BUFFER }));
  let failure: Error | null = null;
  stream.on('error', (err: Error) => (failure = err));
  const done = finished(stream);
  done.catch(() => {});
  return {
    async write(text) {
      if (failure) throw failure;
      if (!stream.write(text)) await Promise.race([once(stream, 'drain'), done]);
      else await new Promise<void>((resolve) => setImmediate(resolve));
      if (failure) throw failure;
    },
    async end() {
      stream.end();
      await done;
      if (failure) throw failure;
    },
    async abort(reason) {
      stream.destroy(reason);
      await done.catch(() => {});
    },
  };
}

// ---- PGlite: multi-row INSERT -------------------------------------------------------------------

async function insertRows(trx: Executor, rows: TableRows, onBatch?: (n: number) => void): Promise<number> {
  const head = `insert into ${quoteIdent(rows.table)} (${rows.columns.map(quoteIdent).join(', ')}) values `;
  let written = 0;
  for (const chunk of rows.chunks(SQL_ENCODER, INSERT_ROWS)) {
    await sql.raw(head + chunk.text).execute(trx);
    written += chunk.rows;
    onBatch?.(chunk.rows);
  }
  return written;
}
