import type { Store } from '../store/store.js';
import type { SessionWrites } from './read-context.js';

/**
 * Read-your-writes across instances (docs/adr/0101-reads-on-a-streaming-replica.md): a session that
 * wrote is marked in the shared store for as long as the replica may still miss the write, and its
 * replica reads go to the primary meanwhile, whichever instance serves them.
 */
export function storeSessionWrites(store: Store, forMs: number): SessionWrites {
  const ttlS = Math.max(1, Math.ceil(forMs / 1000));
  const key = (session: string) => `db-wrote:${session}`;
  return {
    mark: (session) => store.set(key(session), '1', ttlS),
    wroteLately: async (session) => (await store.get(key(session))) !== null,
  };
}
