import { AsyncLocalStorage } from 'node:async_hooks';
import {
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type Transaction,
  type UnknownRow,
} from 'kysely';
import type { DB } from '../../db/types.js';
import type { RequestContext } from '../http/context.js';
import { recordOperation } from '../oplog/oplog.js';
import type { Db } from './database.js';
import type { Executor } from './executor.js';

export type Trx = Transaction<DB>;
export type BizId = string | number | null | undefined;

/** The database whose helper-managed transaction is open in the current async context. */
const openTransaction = new AsyncLocalStorage<Db>();

export class PoolQueryInTransactionError extends Error {
  constructor() {
    super(
      'a query ran on the database pool while this code holds an open transaction: run it on the transaction (trx) instead',
    );
    this.name = 'PoolQueryInTransactionError';
  }
}

/**
 * Installed on every root `Db` (openDatabase). Plugins run when a query is compiled, before it waits
 * for a connection: on PGlite (one session, where an open transaction holds every other statement) a
 * pool query inside the caller's own transaction would wait forever for that transaction; on
 * PostgreSQL it would silently run outside it. Either way it is a bug, so it fails at once. Transactions opened by `inTransaction`
 * hand their work a plugin-free `trx`, so their own queries pass.
 */
export class TransactionGuard implements KyselyPlugin {
  private db: Db | null = null;

  attach(db: Db): void {
    this.db = db;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.db !== null) assertNotInOwnTransaction(this.db);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** The guard's check, for a query run without being compiled (`compiledOnce`), where plugins do not see it. */
export function assertNotInOwnTransaction(db: Executor): void {
  if (openTransaction.getStore() === db) throw new PoolQueryInTransactionError();
}

/** The transaction without the guard (its queries are the transaction's own), keeping any other plugin. */
function withoutGuard(trx: Trx): Trx {
  let inner = trx.withoutPlugins();
  for (const plugin of trx.getExecutor().plugins)
    if (!(plugin instanceof TransactionGuard)) inner = inner.withPlugin(plugin);
  return inner;
}

/**
 * Runs `work` in one transaction and gives it only the transaction. Nested use, or a query on `db`
 * from inside `work`, fails fast with PoolQueryInTransactionError instead of hanging (PGlite).
 */
export async function inTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  if (openTransaction.getStore() === db) throw new PoolQueryInTransactionError();
  return db.transaction().execute((trx) => openTransaction.run(db, () => work(withoutGuard(trx))));
}

/**
 * `inTransaction` plus the operation-log row of the request's operation, written inside the same
 * transaction after `work` succeeded (docs/architecture.md §5.11): the row commits or rolls back with the change,
 * and a rolled-back operation gets its failure row from the pipeline.
 */
export async function loggedTransaction<T>(
  db: Db,
  ctx: RequestContext,
  work: (trx: Trx) => Promise<T>,
  bizId?: (result: T) => BizId,
): Promise<T> {
  return inTransaction(db, async (trx) => {
    const result = await work(trx);
    await recordOperation(trx, ctx, bizId ? bizId(result) : null);
    return result;
  });
}

/** Lock namespaces, one per kind of scope that must not run twice at once. */
export type LockNamespace =
  | 'allocation-scope'
  | 'card-daily-limit'
  | 'bank-operator-quota'
  | 'settlement'
  | 'estimation-submit'
  | 'account-tokens'
  | 'migrations'
  | (string & {});

/**
 * Holds a transaction-scoped advisory lock on (namespace, key) until the transaction ends: a second
 * transaction asking for the same pair, on any connection of any instance, waits. PGlite has one
 * session, where transactions already run one at a time; the call is the same there.
 */
export async function advisoryLock(trx: Trx, namespace: LockNamespace, key: string | number): Promise<void> {
  if (!trx.isTransaction) throw new Error('advisoryLock needs an open transaction');
  await sql`select pg_advisory_xact_lock(hashtext(${namespace}), hashtext(${String(key)}))`.execute(trx);
}

/**
 * advisoryLock of several keys in one statement. They are taken in sorted order, the same for every
 * caller, so two such calls over overlapping keys cannot deadlock each other.
 */
export async function advisoryLocks(
  trx: Trx,
  namespace: LockNamespace,
  keys: ReadonlyArray<string | number>,
): Promise<void> {
  if (!trx.isTransaction) throw new Error('advisoryLocks needs an open transaction');
  const sorted = [...new Set(keys.map(String))].sort();
  if (sorted.length === 0) return;
  await sql`select pg_advisory_xact_lock(hashtext(${namespace}), hashtext(k)) from unnest(${sorted}::text[]) with ordinality as t(k, n) order by n`.execute(
    trx,
  );
}
