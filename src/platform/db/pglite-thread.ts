import { Worker } from 'node:worker_threads';
import { pgliteModuleUrl } from './pglite-initdb.js';

/**
 * The embedded PostgreSQL (PGlite, WebAssembly) on a worker thread of its own. In the request thread a
 * statement cost twice its own time whenever request handling ran between two statements (its memory
 * evicted from the core's caches by the allocations of the HTTP work, measured: docs/adr/0082-embedded-database-on-a-thread-of-its-own.md);
 * on its own thread it stays warm, and it runs beside the HTTP work on the other core.
 */
export interface PgliteThreadOptions {
  /** a data directory on disk; none for an in-memory database */
  dataDir?: string;
  /** start from this dumped data directory (tar): its bytes (copied for the thread) or a Blob */
  loadDataDir?: Blob | Uint8Array;
  /** in-memory test databases only: trade durability for speed, 1 MB WAL segments */
  inMemory: boolean;
}

export interface PgliteQueryResult {
  rows: Record<string, unknown>[];
  affectedRows?: number;
}

type Op =
  | { op: 'query'; conn: number; sql: string; params: readonly unknown[] }
  | { op: 'begin' | 'commit' | 'rollback'; conn: number }
  | { op: 'copy-data-dir'; target: string }
  | { op: 'checkpoint-dump' | 'close' };

/** A database error as the thread sends it: its message and its fields (code, constraint, detail …). */
interface SentError {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean>;
}

export class PgliteThread {
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  private nextId = 1;
  private exited: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: SentError }) => {
      const waiter = this.pending.get(m.id);
      if (!waiter) return;
      this.settled(m.id);
      if (m.ok) waiter.resolve(m.value);
      else waiter.reject(toError(m.error!));
    });
    const fail = (err: Error) => {
      this.exited = err;
      for (const [id, waiter] of this.pending) {
        this.settled(id);
        waiter.reject(err);
      }
    };
    worker.on('error', (err) => fail(new Error(`the database thread failed: ${err.message}`)));
    worker.on('exit', () => fail(new Error('the database thread has exited')));
    // An idle thread must not keep the process alive (scripts end when their work does); a thread
    // with a statement in flight must, or a script awaiting it would exit under it.
    worker.unref();
  }

  static async start(opts: PgliteThreadOptions): Promise<PgliteThread> {
    // Node 20's Blob.arrayBuffer() reads a 37 MB dump in ~0.5 s; bytes are copied in ~10 ms (a copy of
    // its own: the buffer is handed over to the thread, and a Buffer's slice() would share the caller's).
    const given = opts.loadDataDir;
    const dump = !given ? null : given instanceof Uint8Array ? new Uint8Array(given).buffer : await given.arrayBuffer();
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        pgliteModule: pgliteModuleUrl(),
        dataDir: opts.dataDir ?? null,
        inMemory: opts.inMemory,
        dump,
      },
      transferList: dump ? [dump] : [],
    });
    return new PgliteThread(worker);
  }

  /** A statement, in the open transaction of connection `conn` if it has one. */
  query(conn: number, sql: string, params: readonly unknown[]): Promise<PgliteQueryResult> {
    return this.request({ op: 'query', conn, sql, params }) as Promise<PgliteQueryResult>;
  }

  begin(conn: number): Promise<void> {
    return this.request({ op: 'begin', conn }) as Promise<void>;
  }

  commit(conn: number): Promise<void> {
    return this.request({ op: 'commit', conn }) as Promise<void>;
  }

  rollback(conn: number): Promise<void> {
    return this.request({ op: 'rollback', conn }) as Promise<void>;
  }

  /** The data directory as a tarball, taken at a checkpoint (a start from it replays no WAL). */
  async dump(): Promise<Blob> {
    return new Blob([(await this.request({ op: 'checkpoint-dump' })) as ArrayBuffer]);
  }

  /**
   * Copies the data directory to `target` (which must not exist) as it stands between two statements:
   * after a checkpoint, with every statement held back while the files are copied, so the copy is
   * what a crash at that instant would leave, which PostgreSQL starts from (replaying the WAL written
   * since the checkpoint). Statements wait for the copy (~0.5 s for 200 MB here).
   */
  async copyDataDir(target: string): Promise<void> {
    await this.request({ op: 'copy-data-dir', target });
  }

  async close(): Promise<void> {
    if (this.exited) return;
    try {
      await this.request({ op: 'close' });
    } finally {
      await this.worker.terminate();
    }
  }

  private request(message: Op): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }
}

function toError(sent: SentError): Error {
  const err = new Error(sent.message);
  Object.assign(err, sent.fields);
  err.name = sent.name;
  return err;
}

/**
 * The thread's program, as source: an eval'd worker needs no file of its own, so the same code runs
 * from the sources (tsx, vitest) and from the bundle, and no build step rewrites it (a function's text
 * would carry each transformer's helpers: `__name`, `__require`). Plain JavaScript, CommonJS.
 *
 * Messages are served as they come: PGlite itself runs one statement at a time, and a statement
 * outside a transaction waits while one is open (its transaction lock), so statements of other
 * requests queue here without the request thread waiting between them. A transaction belongs to one
 * connection of the driver; that connection's statements run in it until its commit or rollback.
 */
const THREAD_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
// Ids and counts are bigint in SQL but stay far below 2^53, so they travel as plain numbers;
// dates stay 'YYYY-MM-DD' strings so no time zone can shift them.
const INT8 = 20;
const DATE = 1082;
let pg;
// PGlite reads the dump with Blob.arrayBuffer() alone, which Node 20 serves in small pieces it then
// joins (~0.5 s for a test file's 37 MB), after a Blob constructor that copies them (~0.15 s); the
// bytes are here already. Should a later PGlite read it otherwise, it reads an empty archive and the
// start fails (every PGlite test file starts this way).
function dumpBlob(bytes) {
  return Object.defineProperties(new Blob([], { type: 'application/x-tar' }), {
    arrayBuffer: { value: async () => bytes },
    size: { value: bytes.byteLength },
  });
}
const ready = import(workerData.pgliteModule).then(({ PGlite }) => {
  pg = new PGlite({
    dataDir: workerData.dataDir ?? undefined,
    loadDataDir: workerData.dump ? dumpBlob(workerData.dump) : undefined,
    parsers: { [INT8]: (v) => Number(v), [DATE]: (v) => v },
    // Only in-memory (test) databases trade durability for speed; a data directory keeps every commit.
    relaxedDurability: workerData.inMemory === true,
    // A test file starts from a dump of one such database: 1 MB WAL segments instead of 16 MB make
    // that dump a quarter smaller and each file's start ~0.2 s shorter (measured).
    ...(workerData.inMemory ? { initDbStartParams: ['--wal-segsize=1'] } : {}),
  });
  return pg.waitReady;
});
// connection id → its open transaction: { tx, commit, rollback, closed }
const transactions = new Map();

const ops = {
  async query(m) {
    const r = await (transactions.get(m.conn)?.tx ?? pg).query(m.sql, m.params, { rowMode: 'object' });
    return { rows: r.rows, affectedRows: r.affectedRows };
  },
  // PGlite's own transaction (exclusive on the instance), held open until commit or rollback.
  async begin(m) {
    await new Promise((begun, failed) => {
      const open = { tx: null };
      open.closed = pg.transaction((tx) => {
        open.tx = tx;
        transactions.set(m.conn, open);
        begun();
        return new Promise((commit, rollback) => {
          open.commit = commit;
          open.rollback = rollback;
        });
      });
      open.closed.catch(failed);
    });
  },
  async commit(m) {
    const open = transactions.get(m.conn);
    open.commit();
    try {
      await open.closed;
    } finally {
      transactions.delete(m.conn);
    }
  },
  async rollback(m) {
    const open = transactions.get(m.conn);
    open.rollback(new Error('rolled back'));
    try {
      await open.closed;
    } catch {
      // the rollback itself
    } finally {
      transactions.delete(m.conn);
    }
  },
  async 'copy-data-dir'(m) {
    if (!workerData.dataDir) throw new Error('an in-memory database has no data directory to copy');
    await pg.exec('checkpoint');
    // runExclusive holds the lock every statement takes, those of open transactions too. The copy is
    // file by file in the kernel (copy_file_range, or a clone where the file system has them): fs.cp
    // took 1.2 s where this takes ~0.3 s for 200 MB, and statements wait for all of it.
    await pg.runExclusive(async () => copyTree(workerData.dataDir, m.target));
  },
  async 'checkpoint-dump'() {
    await pg.exec('checkpoint');
    return (await pg.dumpDataDir('none')).arrayBuffer();
  },
  async close() {
    if (!pg.closed) await pg.close();
  },
};

function copyTree(from, to) {
  const fs = require('node:fs');
  const path = require('node:path');
  fs.mkdirSync(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isFile()) fs.copyFileSync(source, target, fs.constants.COPYFILE_EXCL | fs.constants.COPYFILE_FICLONE);
  }
}

function fieldsOf(e) {
  const fields = {};
  for (const [k, v] of Object.entries(e)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
  return fields;
}

parentPort.on('message', (m) => {
  ready.then(() => ops[m.op](m)).then(
    (value) => parentPort.postMessage({ id: m.id, ok: true, value }, value instanceof ArrayBuffer ? [value] : []),
    (e) => parentPort.postMessage({ id: m.id, ok: false, error: { name: e?.name ?? 'Error', message: e?.message ?? String(e), fields: fieldsOf(e ?? {}) } }),
  );
});
`;
