/**
 * The small key-value store behind sessions, captcha and SMS codes, nonces, rate limits and cache
 * invalidation. In-process by default, Redis when REDIS_URL is set, so several instances share it.
 * Keys are given without the deployment prefix; implementations add it.
 */
export interface Store {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Sets only when the key is absent; true when this call set it (single-use nonces, locks). */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  /** Reads and deletes in one step, so a value can be consumed once (captcha and SMS codes). */
  take(key: string): Promise<string | null>;
  del(key: string): Promise<void>;
  /** Deletes the key only while it holds `value`, in one step; true when it did (releasing one's own lock). */
  delIfValue(key: string, value: string): Promise<boolean>;
  /** Increments a counter, starting its expiry on the first increment (fixed-window rate limits). */
  incr(key: string, ttlSeconds: number): Promise<number>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  /**
   * Called after the connection to a shared store was lost and regained, once the subscriptions are
   * in place again: messages published while it was away were missed.
   */
  onReconnect(handler: () => void): void;
  /** Called when the subscription's connection is lost: messages published from now on are missed until onReconnect. */
  onDisconnect(handler: () => void): void;
  ping(): Promise<void>;
  close(): Promise<void>;
}
