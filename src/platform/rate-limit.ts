import type { Store } from './store/store.js';
import { tooManyRequests } from './errors.js';

/** Fixed one-minute windows counted in the store, so the limit holds across instances. */
export async function enforceRate(store: Store, bucket: string, subject: string, perMinute: number): Promise<void> {
  const window = Math.floor(Date.now() / 60_000);
  const count = await store.incr(`rate:${bucket}:${subject}:${window}`, 61);
  if (count > perMinute) throw tooManyRequests();
}
