import type { Store } from '../store/store.js';
import { enforceRate } from '../rate-limit.js';
import { clientKey } from '../client-address.js';
import type { AppError } from '../errors.js';
import { accountLocked, accountUnderAttack, badCredentials } from './login-errors.js';

/**
 * Failed-login lock-out, counted in the store so it holds across instances (docs/adr/0031-login-lock-out-keyed-by-account-name-and-address.md):
 * - five failures for one account name from one client address (an IPv6 /64) lock that pair for
 *   10 minutes, the fifth failure answering 423 itself: an attacker locks only himself out;
 * - more than ACCOUNT_FAILURE_LIMIT attempts for an account name within 10 minutes from addresses it
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
  /**
   * The password was right: refuses (423) if a concurrent attempt locked the pair meanwhile, else
   * clears the pair's count. Called before the account's status is looked at.
   */
  passwordAccepted(): Promise<void>;
  /** Remembers the address as the account's own. */
  succeeded(): Promise<void>;
}

/** Login attempts per client address and minute, before anything else is checked. */
export async function limitLoginRate(store: Store, perMinute: number, ip: string): Promise<void> {
  await enforceRate(store, 'login-ip', ip, perMinute);
}

export function createLoginGuard(store: Store, kind: LoginKind) {
  const lockOf = async (pair: string) => Number((await store.get(`login-lock:${pair}`)) ?? 0);
  return {
    /**
     * Refuses a locked name/address pair (423) or an account under attack from a stranger (429), and
     * otherwise takes one of the pair's FAILURES_BEFORE_LOCK slots before the password is checked.
     * The slot is taken with one atomic increment, so a burst of parallel logins gets at most five
     * passwords checked (reading the counts and counting only failures let every request of a burst
     * through). A slot is given back only by a right password, which clears the pair's count.
     */
    async admit(name: string, ip: string): Promise<LoginTicket> {
      const pair = `${kind}:${clientKey(ip)}:${name}`;
      const account = `${kind}:${name}`;
      const [lockedUntil, known] = await Promise.all([lockOf(pair), store.get(`login-known:${pair}`)]);
      if (lockedUntil > Date.now()) throw accountLocked(new Date(lockedUntil));
      const slot = await store.incr(`login-fail:${pair}`, LOCK_MINUTES * 60);
      // Read again after counting: the locking failure sets the lock before it clears the count, so an
      // attempt that read no lock above but counted after the clear finds the lock here.
      const until = await lockOf(pair);
      if (until > Date.now()) throw accountLocked(new Date(until));
      // All five slots are taken by failures or by attempts still being checked: the pair is about to
      // lock (or one of them is right and will clear the count).
      if (slot > FAILURES_BEFORE_LOCK) throw accountLocked(new Date(Date.now() + LOCK_MINUTES * 60_000));
      const stranger = known === null;
      // Attempts from strangers are counted as they are admitted, for the same reason; their right
      // passwords are counted apart and taken off, so only failures and attempts in flight hold back.
      if (stranger) {
        const [attempts, rightOnes] = await Promise.all([
          store.incr(`login-fail-account:${account}`, ACCOUNT_WINDOW_S),
          store.get(`login-ok-account:${account}`),
        ]);
        if (attempts - Number(rightOnes ?? 0) > ACCOUNT_FAILURE_LIMIT) throw accountUnderAttack();
      }

      return {
        async failed() {
          if (slot < FAILURES_BEFORE_LOCK) return badCredentials();
          const until = Date.now() + LOCK_MINUTES * 60_000;
          // The value is the deadline (so it is read against the clock); the expiry only tidies up.
          await store.set(`login-lock:${pair}`, String(until), LOCK_MINUTES * 60 + 60);
          await store.del(`login-fail:${pair}`);
          return accountLocked(new Date(until));
        },
        async passwordAccepted() {
          // The fifth failure of a concurrent attempt may have answered 423 while this one was checked:
          // the pair then refuses even the right password, as it would one request later.
          const until = await lockOf(pair);
          if (until > Date.now()) throw accountLocked(new Date(until));
          await Promise.all([
            store.del(`login-fail:${pair}`),
            stranger ? store.incr(`login-ok-account:${account}`, ACCOUNT_WINDOW_S) : Promise.resolve(0),
          ]);
        },
        async succeeded() {
          await store.set(`login-known:${pair}`, '1', KNOWN_ADDRESS_S);
        },
      };
    },
  };
}

export type LoginGuard = ReturnType<typeof createLoginGuard>;
