import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import type { Store } from './store.js';

/**
 * The in-process store of a single instance. Bounded, so a flood of sessions cannot exhaust memory.
 * `now` (ms) lets tests move time instead of sleeping through expiries.
 */
export function createMemoryStore(maxEntries = 100_000, now: () => number = () => performance.now()): Store {
  // ttlResolution 0: read the clock on every check rather than caching it for a millisecond.
  const cache = new LRUCache<string, string>({ max: maxEntries, ttlAutopurge: false, ttlResolution: 0, perf: { now } });
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const ms = (s: number) => Math.max(1, Math.round(s * 1000));
  return {
    kind: 'memory',
    async get(key) {
      return cache.get(key) ?? null;
    },
    async set(key, value, ttl) {
      cache.set(key, value, { ttl: ms(ttl) });
    },
    async setIfAbsent(key, value, ttl) {
      if (cache.has(key)) return false;
      cache.set(key, value, { ttl: ms(ttl) });
      return true;
    },
    async take(key) {
      const value = cache.get(key) ?? null;
      if (value !== null) cache.delete(key);
      return value;
    },
    async del(key) {
      cache.delete(key);
    },
    async delIfValue(key, value) {
      return cache.get(key) === value && cache.delete(key);
    },
    async incr(key, ttl) {
      const current = cache.get(key);
      if (current === undefined) {
        cache.set(key, '1', { ttl: ms(ttl) });
        return 1;
      }
      const next = Number(current) + 1;
      // keep the window's original expiry
      cache.set(key, String(next), { ttl: Math.max(1, cache.getRemainingTTL(key)) });
      return next;
    },
    async publish(channel, message) {
      bus.emit(channel, message);
    },
    async subscribe(channel, handler) {
      bus.on(channel, handler);
    },
    onReconnect() {},
    onDisconnect() {},
    async ping() {},
    async close() {
      bus.removeAllListeners();
      cache.clear();
    },
  };
}
