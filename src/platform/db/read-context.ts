import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a route's statements are, as its declaration says (docs/adr/0101-reads-on-a-streaming-replica.md):
 * `primary` (anything, the default), `replica` (page reads: outside a transaction its reads may be
 * served by the replica) or `report` (statistics and exports: replica reads too, and the longer
 * statement bound of reports, docs/adr/0102-statement-bounds-per-kind-of-operation.md).
 */
export type RouteReads = 'primary' | 'replica' | 'report';

/** Who remembers, across instances, that a session wrote lately (read-your-writes). */
export interface SessionWrites {
  /** Marks the session for as long as the replica may lag behind the write. */
  mark(session: string): Promise<void>;
  wroteLately(session: string): Promise<boolean>;
}

/** The request being served, as the database routing sees it. */
export interface ReadContext {
  reads: RouteReads;
  /** The session the request runs for (none on public and signed calls). */
  session: string | null;
  /** Set when a replica is configured: where the session's writes are remembered. */
  sessions: SessionWrites | null;
  /** This request wrote (or opened a transaction): its reads after that stay on the primary. */
  wrote: boolean;
  /** The session's mark, written once per request. */
  marking: Promise<void> | null;
  /** The session's mark, read once per request when a read could go to the replica. */
  wroteLately: Promise<boolean> | null;
}

const current = new AsyncLocalStorage<ReadContext>();

export function newReadContext(reads: RouteReads, session: string | null, sessions: SessionWrites | null): ReadContext {
  return { reads, session, sessions, wrote: false, marking: null, wroteLately: null };
}

/** Runs `work` (a route's handler, its streamed answer) as the request `ctx`. */
export function runInReadContext<T>(ctx: ReadContext, work: () => T): T {
  return current.run(ctx, work);
}

export function readContext(): ReadContext | undefined {
  return current.getStore();
}

/**
 * Runs `work` outside any request's read context: on the primary, with the ordinary statement bound.
 * For loads whose result outlives the request (shared caches): a replica's older rows kept there
 * would outlast the lag bound.
 */
export function onPrimary<T>(work: () => T): T {
  return current.exit(work);
}
