import type { Store } from './store/store.js';
import { clientKey } from './client-address.js';
import { tooManyRequests } from './errors.js';

/**
 * Fixed one-minute windows per client address counted in the store, so the limit holds across
 * instances. The address counts as its clientKey (an IPv6 client by its /64), so rotating addresses
 * within one subscriber's block does not reset the count.
 */
export async function enforceRate(store: Store, bucket: string, clientIp: string, perMinute: number): Promise<void> {
  const window = Math.floor(Date.now() / 60_000);
  const count = await store.incr(`rate:${bucket}:${clientKey(clientIp)}:${window}`, 61);
  if (count > perMinute) throw tooManyRequests();
}
