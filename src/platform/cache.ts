import type { Store } from './store/store.js';
import { onPrimary } from './db/read-context.js';

const CHANNEL = 'cache-invalidate';

/**
 * Read-mostly data (region list and tree) kept in process memory, dropped on every write — on all
 * instances, through the store's publish/subscribe. A generation number per entry keeps a load that
 * raced with an invalidation from caching what it read before the write.
 */
export class SharedCache {
  private readonly entries = new Map<string, unknown>();
  private readonly loading = new Map<string, Promise<unknown>>();
  private readonly generations = new Map<string, number>();

  private constructor(private readonly store: Store) {}

  static async create(store: Store): Promise<SharedCache> {
    const cache = new SharedCache(store);
    await store.subscribe(CHANNEL, (name) => cache.dropLocal(name));
    // A lost subscription may have missed invalidations: forget everything.
    store.onReconnect(() => {
      for (const name of [...cache.entries.keys(), ...cache.loading.keys()]) cache.dropLocal(name);
    });
    return cache;
  }

  async getOrLoad<T>(name: string, load: () => Promise<T>): Promise<T> {
    if (this.entries.has(name)) return this.entries.get(name) as T;
    const pending = this.loading.get(name);
    if (pending) return pending as Promise<T>;
    const generation = this.generations.get(name) ?? 0;
    // Loaded from the primary whatever route asks first: a replica's older rows would stay cached
    // past its lag bound (docs/adr/0101-reads-on-a-streaming-replica.md).
    const promise = onPrimary(load).then(
      (value) => {
        if ((this.generations.get(name) ?? 0) === generation) this.entries.set(name, value);
        if (this.loading.get(name) === promise) this.loading.delete(name);
        return value;
      },
      (error: unknown) => {
        if (this.loading.get(name) === promise) this.loading.delete(name);
        throw error;
      },
    );
    this.loading.set(name, promise);
    return promise;
  }

  /** Drops the entries here and tells every other instance to drop theirs. */
  async invalidate(...names: string[]): Promise<void> {
    for (const name of names) {
      this.dropLocal(name);
      await this.store.publish(CHANNEL, name);
    }
  }

  private dropLocal(name: string): void {
    this.entries.delete(name);
    this.loading.delete(name);
    this.generations.set(name, (this.generations.get(name) ?? 0) + 1);
  }
}
