import { randomBytes } from 'node:crypto';
import type { Store } from '../../platform/store/store.js';
import { drawCaptcha, randomDigits } from '../../platform/captcha.js';
import { enforceRate } from '../../platform/rate-limit.js';
import type { RequestContext } from '../../platform/http/context.js';
import { captchaMissing, captchaWrong } from '../../platform/auth/login-errors.js';

export const CAPTCHA_TTL_S = 300;
/** How long an issued session key may be reused for new images (the SESSION cookie lives as long). */
export const CAPTCHA_SESSION_TTL_S = CAPTCHA_TTL_S * 6;
const KEY_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
const captchaKey = (sessionKey: string) => `captcha:${sessionKey}`;
const issuedKey = (sessionKey: string) => `captcha-session:${sessionKey}`;

export function isSessionKey(value: unknown): value is string {
  return typeof value === 'string' && KEY_PATTERN.test(value);
}

/** Image captcha of staff login (spec A 4.1 rule 3, A §5.3). */
export function createCaptchaService(deps: { store: Store; ratePerMin: number; bypassCode: string | null }) {
  return {
    /**
     * A new 4-digit code kept 5 minutes under the caller's session key. Only a key this service issued
     * (and that has not expired) is reused; any other cookie gets a fresh random key, so a key chosen
     * or planted by someone else never holds a code.
     */
    async issue(ctx: RequestContext, existingKey: string | undefined): Promise<{ sessionKey: string; png: Buffer }> {
      await enforceRate(deps.store, 'captcha', ctx.ip, deps.ratePerMin);
      const reusable = isSessionKey(existingKey) && (await deps.store.get(issuedKey(existingKey))) !== null;
      const sessionKey = reusable ? existingKey : randomBytes(24).toString('base64url');
      const code = randomDigits(4);
      await deps.store.set(issuedKey(sessionKey), '1', CAPTCHA_SESSION_TTL_S);
      await deps.store.set(captchaKey(sessionKey), code, CAPTCHA_TTL_S);
      return { sessionKey, png: drawCaptcha(code) };
    },

    /**
     * Consumes the stored code: single-use, and a mismatch clears it too. The bypass code replaces
     * only the comparison, so a login that never requested a captcha is still refused.
     */
    async verify(sessionKey: string | undefined, submitted: string | null | undefined): Promise<void> {
      const stored = isSessionKey(sessionKey) ? await deps.store.take(captchaKey(sessionKey)) : null;
      if (stored === null) throw captchaMissing();
      const given = (submitted ?? '').trim();
      if (deps.bypassCode !== null && given === deps.bypassCode) return;
      if (given.toLowerCase() !== stored.toLowerCase()) throw captchaWrong();
    },
  };
}

export type CaptchaService = ReturnType<typeof createCaptchaService>;
