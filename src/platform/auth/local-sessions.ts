import { LRUCache } from 'lru-cache';
import type { Store } from '../store/store.js';
import type { Session } from './tokens.js';

/** Where an ended session's access-token hashes are published (comma-separated), by every TokenService. */
export const SESSION_DROP_CHANNEL = 'session-drop';

/**
 * Sessions kept parsed in this process, so a request of a token used a moment ago is authenticated
 * without asking the shared store (a Redis round trip and a JSON parse: more than half of a cached
 * read's CPU, measured). A session ended on any instance is dropped here through the store's
 * publish/subscribe; while the subscription is down nothing is kept, since drops would be missed.
 * The time limit only bounds a subscription that went silent without closing (its heartbeat notices
 * within ~10 s). Sessions are frozen: every request of the token shares the one object.
 */
export class LocalSessions {
  private readonly entries: LRUCache<string, Session>;
  /** Advanced by every drop: a read of the store that began before a drop must not be kept after it. */
  private epoch = 0;
  private live = true;

  private constructor(ttlMs: number, max: number) {
    this.entries = new LRUCache<string, Session>({ max, ttl: ttlMs, ttlAutopurge: false });
  }

  static async create(store: Store, opts: { ttlMs: number; max: number }): Promise<LocalSessions> {
    const sessions = new LocalSessions(opts.ttlMs, opts.max);
    await store.subscribe(SESSION_DROP_CHANNEL, (message) => sessions.drop(message.split(',')));
    store.onDisconnect(() => sessions.forgetAll(false));
    store.onReconnect(() => sessions.forgetAll(true));
    return sessions;
  }

  /** The session kept for this access-token hash, if it has not expired. */
  get(accessHash: string, now: number): Session | undefined {
    const session = this.entries.get(accessHash);
    if (session && session.expiresAt <= now) {
      this.entries.delete(accessHash);
      return undefined;
    }
    return session;
  }

  /** Call before reading the store; pass it to `keep`. */
  mark(): number {
    return this.epoch;
  }

  /** Keeps a session read from the store, unless a drop arrived since `mark` or the subscription is down. */
  keep(accessHash: string, session: Session, mark: number): Session {
    if (!this.live || mark !== this.epoch) return session;
    const frozen = deepFreeze(session);
    this.entries.set(accessHash, frozen);
    return frozen;
  }

  /** Drops sessions here (the other instances are told by the message their TokenService publishes). */
  drop(accessHashes: readonly string[]): void {
    this.epoch += 1;
    for (const h of accessHashes) this.entries.delete(h);
  }

  private forgetAll(live: boolean): void {
    this.epoch += 1;
    this.live = live;
    this.entries.clear();
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
