import type { Store } from '../../src/platform/store/store.js';

/**
 * A store that runs a hook once, just before the next session is cached: the moment between a
 * login's committed token row and its session in the store, where a revocation may land.
 */
export function hookedStore(inner: Store): { store: Store; beforeNextSession(hook: () => Promise<void>): void } {
  let pending: (() => Promise<void>) | null = null;
  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'set') {
        return async (key: string, value: string, ttlSeconds: number) => {
          if (pending && key.startsWith('sess:')) {
            const hook = pending;
            pending = null;
            await hook();
          }
          return target.set(key, value, ttlSeconds);
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    store,
    beforeNextSession: (hook) => {
      pending = hook;
    },
  };
}
