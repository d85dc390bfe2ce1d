import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** A bench run's store prefix: its own, so deleteRedisKeys removes its keys and no other run's. */
export function benchStorePrefix(): string {
  return `bench:${randomBytes(4).toString('hex')}:`;
}

/**
 * Deletes every key of the Redis at `url` that starts with `prefix`. Test runs and benches each put
 * their keys under a prefix of their own; sessions, login counters and SMS day counters expire only
 * after hours or days, so a run deletes its prefix rather than leave them in a shared Redis.
 */
export async function deleteRedisKeys(url: string | null | undefined, prefix: string): Promise<void> {
  if (!url) return;
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    // SCAN's pattern is a glob: the prefix's own *, ?, [ and \ are taken literally.
    const match = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    for await (const keys of redis.scanStream({ match, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}
