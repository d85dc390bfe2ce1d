import { createMemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import type { Store } from './store.js';

export type { Store } from './store.js';

export function openStore(redisUrl: string | null, prefix: string): Promise<Store> {
  return redisUrl ? createRedisStore(redisUrl, prefix) : Promise.resolve(createMemoryStore());
}
