import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient, type Transaction } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DB } from '../../db/types.js';
import type { Database } from '../../platform/db/database.js';
import { COPY_ENCODER, SQL_ENCODER, type BinaryChunk, type TableRows } from './rows.js';
import { BINARY_COPY_HEADER, BINARY_COPY_TRAILER, cellEncoders, encodeCellsBinary } from './binary-copy.js';
import { columnTypes } from './demo.repository.js';

/**
 * Where the demo rows go: one transaction for the whole data set, so a failure leaves nothing behind.
 *
 * - PostgreSQL: a pg.Client of our own (the project's pool does not expose COPY); the generator's
 *   repository statements run in a Kysely transaction bound to that one client, so they share the
 *   transaction with the COPY streams. Each table is streamed with COPY … FROM STDIN (text format),
 *   a new COPY statement every CHUNK_ROWS rows so that per-statement trigger queues stay small, and
 *   generation overlaps with the server's work (see openCopy). The bulk rows of the fast load go in
 *   COPY's binary format instead (binary-copy.ts), the check-ins one statement per month partition
 *   (ADR 0103).
 * - PGlite: a Kysely transaction on the project's database; rows go in as multi-row INSERTs with inline
 *   literals (PGlite's COPY needs a blob handle that its Kysely dialect does not pass through).
 */

export interface DemoSession {
  kind: 'postgres' | 'pglite';
  /** the session's transaction */
  exec: Transaction<DB>;
  /**
   * Writes every batch of the rows; returns the number of rows written. With a `binary` target (the
   * PostgreSQL session only), rows that have a binary form go in as binary COPY into the table the
   * target names for each chunk's month.
   */
  write(rows: TableRows, onBatch?: (rows: number) => void, binary?: BinaryTarget): Promise<number>;
}

/** Where binary COPY puts a table's rows (ADR 0103). */
export interface BinaryTarget {
  /** the table or month partition that takes the rows of a chunk's month ('' for an unpartitioned table) */
  tableOf(month: string): string;
  /** COPY … FREEZE: the tables were created or truncated in this transaction */
  freeze: boolean;
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
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  try {
    // Kysely's transaction on the one client: begin, commit or rollback, and a Transaction for the
    // functions that join the caller's transaction (partitions.ts).
    return await db.transaction().execute((exec) =>
      fn({
        kind: 'postgres',
        exec,
        write: async (rows, onBatch, binary) => {
          if (binary && rows.binary)
            return copyBinary(client, rows.columns, rows.binary.chunks(SLICE_ROWS), binary, onBatch);
          // Rows given as cells go binary when every column's type has an encoder (binary-copy.ts).
          const encoders =
            binary && rows.cells ? cellEncoders(await columnTypes(exec, binary.tableOf(''), rows.columns)) : null;
          if (binary && rows.cells && encoders)
            return copyBinary(
              client,
              rows.columns,
              encodeCellsBinary(rows.cells(), encoders, SLICE_ROWS),
              binary,
              onBatch,
            );
          return copyRows(client, rows, onBatch);
        },
      }),
    );
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

/**
 * Binary COPY, one statement per month partition (or one for the table), each with the format's
 * header and trailer; FREEZE when the target says the tables are new in this transaction.
 */
async function copyBinary(
  client: pg.Client,
  columnNames: readonly string[],
  chunks: Iterable<BinaryChunk>,
  target: BinaryTarget,
  onBatch?: (n: number) => void,
): Promise<number> {
  const columns = columnNames.map(quoteIdent).join(', ');
  const options = `format binary${target.freeze ? ', freeze' : ''}`;
  let written = 0;
  let stream: CopyStream | null = null;
  let table = '';
  const end = async () => {
    if (!stream) return;
    const ending = stream;
    stream = null;
    await ending.write(BINARY_COPY_TRAILER);
    await ending.end();
  };
  try {
    for (const chunk of chunks) {
      const into = target.tableOf(chunk.month);
      if (into !== table) {
        await end();
        table = into;
      }
      if (!stream) {
        stream = openCopy(client, `copy ${quoteIdent(table)} (${columns}) from stdin with (${options})`);
        await stream.write(BINARY_COPY_HEADER);
      }
      await stream.write(chunk.bytes);
      written += chunk.rows;
      onBatch?.(chunk.rows);
    }
    await end();
  } catch (err) {
    if (stream) await (stream as CopyStream).abort(err as Error);
    throw err;
  }
  return written;
}

interface CopyStream {
  write(data: string | Buffer): Promise<void>;
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
    async write(data) {
      if (failure) throw failure;
      if (!stream.write(data)) await Promise.race([once(stream, 'drain'), done]);
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

async function insertRows(trx: Transaction<DB>, rows: TableRows, onBatch?: (n: number) => void): Promise<number> {
  const head = `insert into ${quoteIdent(rows.table)} (${rows.columns.map(quoteIdent).join(', ')}) values `;
  let written = 0;
  for (const chunk of rows.chunks(SQL_ENCODER, INSERT_ROWS)) {
    await sql.raw(head + chunk.text).execute(trx);
    written += chunk.rows;
    onBatch?.(chunk.rows);
  }
  return written;
}
