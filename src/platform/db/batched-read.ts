import type { Executor } from './executor.js';
import { assertNotInOwnTransaction } from './transaction.js';

type Waiter<R> = { resolve: (r: R | undefined) => void; reject: (e: unknown) => void };
type Batch<K, R, P> = { params: P; waiters: Map<K, Array<Waiter<R>>> };

/** Keys one statement reads at most (unless told fewer): a full batch takes no more reads, and the next read begins another. */
const MAX_KEYS = 256;

/**
 * Point reads by key from requests in flight at the same time, sent as one statement (`id = any($1)`)
 * per turn of the event loop instead of one each. On PostgreSQL each statement is a round trip and a
 * wake-up of a backend, which cost getRegion more than its index read (docs/adr/0076-point-reads-share-a-statement.md);
 * on PGlite each is a message to the database thread.
 *
 * A read joins the batch of its executor and group that has not been sent yet, and the batch is sent
 * after the current turn's callbacks (setImmediate), so every read is sent after it was asked for
 * and sees what was committed before: nothing is cached. Reads on a transaction are not batched (they
 * must see its own writes, on its own connection). `load` answers the rows of the keys it was given;
 * a key it leaves out reads as undefined. A failing statement fails every read of its batch. Reads
 * of the same key in one batch get the same value: map it per read, never change it.
 *
 * `groupOf(params)` names the reads that may share a statement (same scope, say): `load` receives the
 * params of the batch's first read, so reads whose params differ must differ in group. `maxKeys`
 * bounds the keys of one statement where each key costs the database real work (a page each).
 */
export function batchedRead<K, R, P = undefined>(
  load: (db: Executor, keys: K[], params: P) => Promise<Iterable<readonly [K, R]>>,
  groupOf: (params: P) => string = () => '',
  { maxKeys = MAX_KEYS }: { maxKeys?: number } = {},
): (db: Executor, key: K, params: P) => Promise<R | undefined> {
  const open = new WeakMap<Executor, Map<string, Batch<K, R, P>>>();

  async function send(db: Executor, batch: Batch<K, R, P>): Promise<void> {
    try {
      const found = new Map(await load(db, [...batch.waiters.keys()], batch.params));
      for (const [key, waiters] of batch.waiters) for (const w of waiters) w.resolve(found.get(key));
    } catch (e) {
      for (const waiters of batch.waiters.values()) for (const w of waiters) w.reject(e);
    }
  }

  return async (db, key, params) => {
    if (db.isTransaction) return new Map(await load(db, [key], params)).get(key);
    assertNotInOwnTransaction(db);
    const group = groupOf(params);
    let groups = open.get(db);
    if (!groups) open.set(db, (groups = new Map()));
    let batch = groups.get(group);
    if (!batch) {
      const b: Batch<K, R, P> = { params, waiters: new Map() };
      groups.set(group, (batch = b));
      setImmediate(() => {
        if (groups.get(group) === b) groups.delete(group);
        void send(db, b);
      });
    }
    const waiting = new Promise<R | undefined>((resolve, reject) => {
      const same = batch.waiters.get(key);
      if (same) same.push({ resolve, reject });
      else batch.waiters.set(key, [{ resolve, reject }]);
    });
    if (batch.waiters.size >= maxKeys && groups.get(group) === batch) groups.delete(group);
    return waiting;
  };
}
