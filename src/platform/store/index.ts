import { createMemoryStore } from './memory-store.js';
import type { Store } from './store.js';

export type { Store } from './store.js';

/** Redis is loaded only when configured: the embedded default does not pay for the client at start. */
export async function openStore(redisUrl: string | null, prefix: string): Promise<Store> {
  if (!redisUrl) return createMemoryStore();
  const { createRedisStore } = await import('./redis-store.js');
  return createRedisStore(redisUrl, prefix);
}
