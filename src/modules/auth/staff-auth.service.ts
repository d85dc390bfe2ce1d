import type { Db } from '../../platform/db/database.js';
import type { Store } from '../../platform/store/store.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import { AppError } from '../../platform/errors.js';
import { recordLogin } from '../../platform/oplog/oplog.js';
import type { AuthedContext, RequestContext } from '../../platform/http/context.js';
import { accountDisabled, badCredentials } from './auth.errors.js';
import type { CaptchaService } from './captcha.service.js';
import { createLoginGuard, limitLoginRate } from './login-guard.js';
import { recordSuccessfulLogin } from './login-record.repository.js';
import { checkPasswordLogin, stillItsPassword } from './password-login.js';
import { endSession, loginResponse, rememberLogin, type LoginResponse } from './session-answer.js';
import * as staffRepo from './staff.repository.js';

export interface StaffLoginInput {
  username: string;
  password: string;
  code?: string | null;
  uuid?: string | null;
}

/** Staff login and logout on /manage-api (spec A 4.1, A §5). */
export function createStaffAuthService(deps: { db: Db; store: Store; tokens: TokenService; captcha: CaptchaService; loginRatePerMin: number }) {
  const { db, tokens } = deps;
  const guard = createLoginGuard(deps.store, 'admin');

  async function refuse(ctx: RequestContext, username: string, accountId: number | null, error: AppError): Promise<never> {
    await recordLogin(db, ctx, { accountKind: 'admin', accountId, username, success: false, errcode: error.errcode, message: error.message });
    throw error;
  }

  return {
    async login(ctx: RequestContext, input: StaffLoginInput, cookieSessionKey: string | undefined): Promise<LoginResponse> {
      await limitLoginRate(deps.store, deps.loginRatePerMin, ctx.ip);
      await deps.captcha.verify(input.uuid || cookieSessionKey, input.code);

      const { account: user, newHash } = await checkPasswordLogin({
        guard,
        name: input.username,
        ip: ctx.ip,
        found: await staffRepo.findStaffByUsername(db, input.username),
        password: input.password,
        refuse: (accountId, error) => refuse(ctx, input.username, accountId, error),
      });
      const session = await db.transaction().execute(async (trx) => {
        // Locked before it is read, so a disable or a new password racing this login cannot leave it a
        // working token (docs/decisions.md, Auth).
        const locked = await staffRepo.lockStaffForLogin(trx, user.id);
        if (locked && !(await stillItsPassword(locked.passwordHash, user.passwordHash, input.password))) return badCredentials();
        const account = await staffRepo.loadStaffAccount(trx, user.id);
        // Disabled or deleted since the password check, or its merchant is disabled: refused below, and
        // logged like a disabled user, once this transaction (which wrote nothing) has ended.
        if (!account) return accountDisabled();
        await recordSuccessfulLogin(trx, 'admin_user', user.id, ctx.ip, new Date(), newHash);
        const issued = await tokens.issue(trx, account, 'manage', ctx.ip);
        await recordLogin(trx, ctx, { accountKind: 'admin', accountId: user.id, username: user.username, success: true, errcode: 0, message: null });
        return { issued, account };
      });
      if (session instanceof AppError) return refuse(ctx, input.username, user.id, session);
      const { issued, account } = session;
      const lost = await rememberLogin(tokens, issued, account, 'manage');
      if (lost) return refuse(ctx, input.username, user.id, lost);
      return loginResponse({ id: user.id, openId: null, mobile: user.mobile }, issued);
    },

    logout: (ctx: AuthedContext) => endSession(db, tokens, ctx),
  };
}

export type StaffAuthService = ReturnType<typeof createStaffAuthService>;
