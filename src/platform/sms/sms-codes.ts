import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { tooManyRequests } from '../errors.js';
import type { Store } from '../store/store.js';
import { takeLock } from '../store/store-lock.js';
import { phoneInvalid, smsCodeExpired, smsCodeWrong } from './sms.errors.js';
import { MAINLAND_MOBILE, type SmsSender } from './sms-sender.js';

/** What a code is for; a code requested for one purpose never passes a check for another. */
export const SMS_CODE_PURPOSES = ['member-bind-phone', 'bank-login', 'bank-user-login', 'bank-activate'] as const;
export type SmsCodePurpose = (typeof SMS_CODE_PURPOSES)[number];

export interface SmsCodeTarget {
  purpose: SmsCodePurpose;
  phone: string;
  /** Binds the code to a session as well (member bindPhone: the access-token hash); omitted for the bank channel. */
  sessionKey?: string | null;
}

export type SmsCodeCheck = 'ok' | 'expired' | 'wrong';

export interface SmsCodeLimits {
  ttlS: number;
  resendGapS: number;
  dailyLimit: number;
  maxTries: number;
}

export const SMS_CODE_LIMITS: SmsCodeLimits = { ttlS: 300, resendGapS: 60, dailyLimit: 10, maxTries: 5 };

/** Every method throws 1_024_000_002 for a phone that is not an 11-digit mainland mobile. */
export interface SmsCodes {
  /**
   * Texts a new 6-digit code to the phone and holds it for `ttlS` under the target, replacing an
   * earlier one. At most one code per purpose and phone per `resendGapS`, and `dailyLimit` per purpose
   * and phone per service day (429 naming when to retry): codes anyone may request for one purpose
   * cannot use up another purpose's (a bank activation's, a member's phone binding). When the SMS cannot be sent, the error of
   * the sender is thrown and neither the code nor the resend slot is kept.
   */
  send(target: SmsCodeTarget): Promise<{ expiresInS: number }>;
  /**
   * `expired` when no code was requested, it expired, or it was burnt by `maxTries` checks; `wrong`
   * otherwise when it does not match. Does not consume the code: call `consume` once the change the
   * code authorises has committed. The configured bypass code passes only where a code was requested.
   */
  check(target: SmsCodeTarget & { code: string }): Promise<SmsCodeCheck>;
  /** `check`, throwing 1_002_000_004 (expired) or 1_002_000_005 (wrong). */
  verify(target: SmsCodeTarget & { code: string }): Promise<void>;
  consume(target: SmsCodeTarget): Promise<void>;
}

export interface SmsCodesOptions {
  store: Store;
  sender: SmsSender;
  /** SMS_BYPASS_CODE (never in production) */
  bypassCode: string | null;
  /** Milliseconds since the epoch; tests move it instead of sleeping. */
  now?: () => number;
  limits?: Partial<SmsCodeLimits>;
}

interface CodeRecord {
  id: string;
  code: string;
  expiresAt: number;
}

// Expiry is judged from the timestamps inside the values (the injected clock); the store's own TTLs
// only collect the keys afterwards, so they are never shorter than the windows they carry.
const LOCK_TTL_S = 10;
const DAY_TTL_S = 2 * 86400;

const pad = (n: number) => String(n).padStart(2, '0');
/** The service-time-zone day (process TZ) of an instant, for the daily limit. */
function serviceDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}`;
}

function sameCode(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseRecord(raw: string | null): CodeRecord | null {
  if (raw === null) return null;
  try {
    const r = JSON.parse(raw) as CodeRecord;
    return typeof r.id === 'string' && typeof r.code === 'string' && typeof r.expiresAt === 'number' ? r : null;
  } catch {
    return null;
  }
}

const tooSoon = (seconds: number) =>
  tooManyRequests(
    `an SMS code was sent to this phone less than a minute ago, please try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
  );
const tooManyToday = () =>
  tooManyRequests('too many SMS codes were sent to this phone today, please try again tomorrow');

/** SMS verification codes in the shared store, so every limit holds across instances. */
export function createSmsCodes(opts: SmsCodesOptions): SmsCodes {
  const { store, sender, bypassCode } = opts;
  const now = opts.now ?? Date.now;
  const limits = { ...SMS_CODE_LIMITS, ...opts.limits };

  const codeKey = ({ purpose, phone, sessionKey }: SmsCodeTarget) => {
    if (!MAINLAND_MOBILE.test(phone)) throw phoneInvalid();
    // Hashed: a session key may be a token hash, which has no business in a store key listing.
    const session = sessionKey ? ':' + createHash('sha256').update(sessionKey).digest('hex').slice(0, 32) : '';
    return `sms:code:${purpose}:${phone}${session}`;
  };

  /** The resend slot and daily count of a phone, per purpose. */
  const slotOf = ({ purpose, phone }: SmsCodeTarget) => `${purpose}:${phone}`;

  /** Claims the resend slot under a short lock, so two instances cannot both pass the checks. */
  async function claimSlot(slot: string, at: number): Promise<void> {
    const release = await takeLock(store, `sms:lock:${slot}`, LOCK_TTL_S);
    if (!release) throw tooSoon(limits.resendGapS);
    try {
      const last = Number(await store.get(`sms:last:${slot}`)) || 0;
      const waitMs = last + limits.resendGapS * 1000 - at;
      if (waitMs > 0) throw tooSoon(Math.ceil(waitMs / 1000));
      const today = Number(await store.get(`sms:day:${slot}:${serviceDay(at)}`)) || 0;
      if (today >= limits.dailyLimit) throw tooManyToday();
      await store.set(`sms:last:${slot}`, String(at), limits.resendGapS);
    } finally {
      await release();
    }
  }

  async function check(target: SmsCodeTarget & { code: string }): Promise<SmsCodeCheck> {
    const record = parseRecord(await store.get(codeKey(target)));
    if (!record || record.expiresAt <= now()) return 'expired';
    // Counted before comparing, so concurrent guesses are bounded too; the counter belongs to this
    // code (its id), and a code past the limit stays refused until a new one replaces it.
    const tries = await store.incr(`sms:tries:${record.id}`, limits.ttlS + 60);
    if (tries > limits.maxTries) return 'expired';
    const given = (target.code ?? '').trim();
    if (bypassCode !== null && given === bypassCode) return 'ok';
    return sameCode(given, record.code) ? 'ok' : 'wrong';
  }

  return {
    async send(target) {
      const key = codeKey(target);
      const at = now();
      const slot = slotOf(target);
      await claimSlot(slot, at);
      const previous = await store.get(key);
      const record: CodeRecord = {
        id: randomBytes(12).toString('base64url'),
        code: String(randomInt(0, 1_000_000)).padStart(6, '0'),
        expiresAt: at + limits.ttlS * 1000,
      };
      // Stored before sending, so the code works the moment the SMS arrives.
      await store.set(key, JSON.stringify(record), limits.ttlS);
      try {
        await sender.send({ phone: target.phone, template: 'verifyCode', params: { code: record.code } });
      } catch (err) {
        const earlier = parseRecord(previous);
        const remainingS = earlier ? (earlier.expiresAt - at) / 1000 : 0;
        await Promise.allSettled([
          remainingS >= 1 ? store.set(key, previous!, remainingS) : store.del(key),
          store.del(`sms:last:${slot}`),
        ]);
        throw err;
      }
      await store.incr(`sms:day:${slot}:${serviceDay(at)}`, DAY_TTL_S);
      return { expiresInS: limits.ttlS };
    },

    check,

    async verify(target) {
      const result = await check(target);
      if (result === 'expired') throw smsCodeExpired();
      if (result === 'wrong') throw smsCodeWrong();
    },

    async consume(target) {
      await store.del(codeKey(target));
    },
  };
}
