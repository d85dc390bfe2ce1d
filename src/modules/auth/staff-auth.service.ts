import { stampStaffLogin } from '../staff/index.js';
import type { Db } from '../../platform/db/database.js';
import type { Store } from '../../platform/store/store.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { AppError } from '../../platform/errors.js';
import { recordLogin } from '../../platform/oplog/oplog.js';
import type { AuthedContext, RequestContext } from '../../platform/http/context.js';
import type { CaptchaService } from './captcha.service.js';
import { createLoginGuard, limitLoginRate } from '../../platform/auth/login-guard.js';
import { openPasswordSession, type PasswordAccountKind } from '../../platform/auth/login-transaction.js';
import { checkPasswordLogin } from '../../platform/auth/password-login.js';
import { endSession, loginResponse, type LoginResponse } from '../../platform/auth/session-answer.js';
import * as staffRepo from './staff.repository.js';

export interface StaffLoginInput {
  username: string;
  password: string;
  code?: string | null;
  uuid?: string | null;
}

const STAFF: PasswordAccountKind = {
  kind: 'admin',
  stamp: stampStaffLogin,
  channel: 'manage',
  lock: staffRepo.lockStaffForLogin,
  load: staffRepo.loadStaffAccount,
};

/** Staff login and logout on /manage-api (spec A 4.1, A §5). */
export function createStaffAuthService(deps: {
  db: Db;
  store: Store;
  tokens: TokenService;
  captcha: CaptchaService;
  loginRatePerMin: number;
}) {
  const { db, tokens } = deps;
  const guard = createLoginGuard(deps.store, 'admin');

  async function refuse(
    ctx: RequestContext,
    username: string,
    accountId: number | null,
    error: AppError,
  ): Promise<never> {
    await recordLogin(db, ctx, {
      accountKind: 'admin',
      accountId,
      username,
      success: false,
      errcode: error.errcode,
      message: error.message,
    });
    throw error;
  }

  return {
    async login(
      ctx: RequestContext,
      input: StaffLoginInput,
      cookieSessionKey: string | undefined,
    ): Promise<LoginResponse> {
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
      const { issued } = await openPasswordSession(deps, STAFF, {
        ctx,
        checked: user,
        newHash,
        password: input.password,
        username: user.username,
        refuse: (error) => refuse(ctx, input.username, user.id, error),
      });
      return loginResponse({ id: user.id, openId: null, mobile: user.mobile }, issued);
    },

    logout: (ctx: AuthedContext) => endSession(db, tokens, ctx),
  };
}

export type StaffAuthService = ReturnType<typeof createStaffAuthService>;
