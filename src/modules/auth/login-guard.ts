import type { Store } from '../../platform/store/store.js';
import { enforceRate } from '../../platform/rate-limit.js';
import { clientKey } from '../../platform/client-address.js';
import type { AppError } from '../../platform/errors.js';
import { accountLocked, accountUnderAttack, badCredentials } from './auth.errors.js';

/**
 * Failed-login lock-out, counted in the store so it holds across instances (docs/decisions.md):
 * - five failures for one account name from one client address (an IPv6 /64) lock that pair for
 *   10 minutes, the fifth failure answering 423 itself: an attacker locks only himself out;
 * - more than ACCOUNT_FAILURE_LIMIT failures for an account name within 10 minutes from addresses it
 *   has never logged in from answer 429 to further tries from such addresses: a distributed guesser
 *   is slowed, while the owner's own addresses are never held back;
 * - the account name is counted whether or not such an account exists, with the same store
 *   operations, so neither the answers nor their timing tell which names exist.
 */
export const FAILURES_BEFORE_LOCK = 5;
export const LOCK_MINUTES = 10;
export const ACCOUNT_FAILURE_LIMIT = 20;
const ACCOUNT_WINDOW_S = 10 * 60;
const KNOWN_ADDRESS_S = 30 * 24 * 3600;

export type LoginKind = 'admin' | 'checker' | 'bank';

/** One attempt, admitted: report how it ended. */
export interface LoginTicket {
  /** Counts a wrong password (or unknown name); answers the error to give, 423 on the locking failure. */
  failed(): Promise<AppError>;
  /** Clears the address's failures and remembers it as the account's own. */
  succeeded(): Promise<void>;
}

/** Login attempts per client address and minute, before anything else is checked. */
export async function limitLoginRate(store: Store, perMinute: number, ip: string): Promise<void> {
  await enforceRate(store, 'login-ip', clientKey(ip), perMinute);
}

export function createLoginGuard(store: Store, kind: LoginKind) {
  return {
    /** Refuses a locked name/address pair (423) or an account under attack from a stranger (429). */
    async admit(name: string, ip: string): Promise<LoginTicket> {
      const pair = `${kind}:${clientKey(ip)}:${name}`;
      const account = `${kind}:${name}`;
      const [lock, known, accountFailures] = await Promise.all([
        store.get(`login-lock:${pair}`),
        store.get(`login-known:${pair}`),
        store.get(`login-fail-account:${account}`),
      ]);
      const lockedUntil = Number(lock ?? 0);
      if (lockedUntil > Date.now()) throw accountLocked(new Date(lockedUntil));
      const stranger = known === null;
      if (stranger && Number(accountFailures ?? 0) >= ACCOUNT_FAILURE_LIMIT) throw accountUnderAttack();

      return {
        async failed() {
          const [failures] = await Promise.all([
            store.incr(`login-fail:${pair}`, LOCK_MINUTES * 60),
            stranger ? store.incr(`login-fail-account:${account}`, ACCOUNT_WINDOW_S) : Promise.resolve(0),
          ]);
          if (failures < FAILURES_BEFORE_LOCK) return badCredentials();
          const until = Date.now() + LOCK_MINUTES * 60_000;
          // The value is the deadline (so it is read against the clock); the expiry only tidies up.
          await store.set(`login-lock:${pair}`, String(until), LOCK_MINUTES * 60 + 60);
          await store.del(`login-fail:${pair}`);
          return accountLocked(new Date(until));
        },
        async succeeded() {
          await Promise.all([store.del(`login-fail:${pair}`), store.set(`login-known:${pair}`, '1', KNOWN_ADDRESS_S)]);
        },
      };
    },
  };
}

export type LoginGuard = ReturnType<typeof createLoginGuard>;
