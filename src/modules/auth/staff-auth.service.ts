import type { Db } from '../../platform/db/database.js';
import type { Store } from '../../platform/store/store.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import { verifyAgainstDummy, verifyPassword, hashPassword } from '../../platform/auth/password.js';
import { AppError } from '../../platform/errors.js';
import { recordLogin, recordOperation } from '../../platform/oplog/oplog.js';
import type { AuthedContext, RequestContext } from '../../platform/http/context.js';
import { formatDateTime } from '../../platform/time.js';
import { accountDisabled, accountLocked, badCredentials } from './auth.errors.js';
import type { CaptchaService } from './captcha.service.js';
import { limitLoginAttempts, lockDeadline, MAX_FAILED_LOGINS } from './login-guard.js';
import * as staffRepo from './staff.repository.js';

export interface StaffLoginInput {
  username: string;
  password: string;
  code?: string | null;
  uuid?: string | null;
}

export interface LoginResponse {
  userId: number;
  openId: string | null;
  mobile: string | null;
  accessToken: string;
  refreshToken: string;
  expiresTime: string | null;
}

/** Staff login and logout on /manage-api (spec A 4.1, A §5). */
export function createStaffAuthService(deps: { db: Db; store: Store; tokens: TokenService; captcha: CaptchaService; loginRatePerMin: number }) {
  const { db, tokens } = deps;

  async function refuse(ctx: RequestContext, username: string, accountId: number | null, error: AppError): Promise<never> {
    await recordLogin(db, ctx, { accountKind: 'admin', accountId, username, success: false, errcode: error.errcode, message: error.message });
    throw error;
  }

  return {
    async login(ctx: RequestContext, input: StaffLoginInput, cookieSessionKey: string | undefined): Promise<LoginResponse> {
      await limitLoginAttempts(deps.store, deps.loginRatePerMin, 'admin', ctx.ip, input.username);
      await deps.captcha.verify(input.uuid || cookieSessionKey, input.code);

      const user = await staffRepo.findStaffByUsername(db, input.username);
      if (!user) {
        await verifyAgainstDummy(input.password);
        return refuse(ctx, input.username, null, badCredentials());
      }
      if (user.lockedUntil && user.lockedUntil.getTime() > Date.now()) {
        return refuse(ctx, input.username, user.id, accountLocked(user.lockedUntil));
      }
      const check = await verifyPassword(user.passwordHash, input.password);
      if (!check.ok) {
        const until = lockDeadline();
        const locked = await staffRepo.registerFailedLogin(db, user.id, MAX_FAILED_LOGINS, until);
        return refuse(ctx, input.username, user.id, locked ? accountLocked(until) : badCredentials());
      }
      if (user.status !== 1) return refuse(ctx, input.username, user.id, accountDisabled());

      const newHash = check.needsRehash ? await hashPassword(input.password) : null;
      const { issued, account } = await db.transaction().execute(async (trx) => {
        const account = await staffRepo.loadStaffAccount(trx, user.id);
        if (!account) throw accountDisabled();
        await staffRepo.recordSuccessfulLogin(trx, user.id, ctx.ip, newHash);
        const issued = await tokens.issue(trx, account, 'manage', ctx.ip);
        await recordLogin(trx, ctx, { accountKind: 'admin', accountId: user.id, username: user.username, success: true, errcode: 0, message: null });
        return { issued, account };
      });
      await tokens.remember(issued, account, 'manage');
      return {
        userId: user.id,
        openId: null,
        mobile: user.mobile,
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        expiresTime: formatDateTime(issued.expiresTime),
      };
    },

    /** The token and its session stop working at once (spec A 4.1 rule 2). */
    async logout(ctx: AuthedContext): Promise<void> {
      await tokens.revoke(ctx.tokenHash);
      await recordOperation(db, ctx, ctx.account.id);
    },
  };
}

export type StaffAuthService = ReturnType<typeof createStaffAuthService>;
