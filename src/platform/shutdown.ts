import type { Config } from '../config.js';
import { READ_TIMEOUT_GRACE_MS } from './db/database.js';

/**
 * How long closing a connection to PostgreSQL or Redis may take at shutdown. A peer gone silent never
 * answers the goodbye (pg's Terminate, Redis's QUIT): waiting for it only delays the exit; the process
 * exiting drops the sockets, and the server ends those sessions on its own.
 */
export const CLOSE_WITHIN_MS = 2_000;

/** The forced exit's floor: requests that wait on no database (an upload, an export's batches) get this long. */
const DRAIN_FLOOR_MS = 20_000;
/** Room for the answer's write and the log line between the last wait and the exit. */
const EXIT_MARGIN_MS = 1_000;

/**
 * When a draining process gives up and exits 1: after the delay behind the load balancer, long enough
 * for a request waiting on a silent database to get its 503 (a pooled connection awaited, then its
 * statement given up a second after the server's bound) and for the bounded closing that follows.
 */
export function forcedExitAfterMs(
  c: Pick<Config, 'shutdownDelayMs' | 'databaseConnectTimeoutMs' | 'databaseQueryTimeoutMs'>,
): number {
  const longestDatabaseWait =
    c.databaseQueryTimeoutMs > 0 ? c.databaseConnectTimeoutMs + c.databaseQueryTimeoutMs + READ_TIMEOUT_GRACE_MS : 0;
  return c.shutdownDelayMs + Math.max(DRAIN_FLOOR_MS, longestDatabaseWait + CLOSE_WITHIN_MS + EXIT_MARGIN_MS);
}

/**
 * True when `closing` finished within `ms`; false when it is still waiting (then left to the exit).
 * A failure within `ms` is thrown; one after it is nobody's to handle any more.
 */
export async function settledWithin(closing: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    // (the race handles a later failure too: it does not surface as an unhandled rejection)
    return await Promise.race([closing.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
