import { inTransaction } from '../../platform/db/transaction.js';
import type { Db } from '../../platform/db/database.js';
import type { Store } from '../../platform/store/store.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import { AppError, ErrorCode } from '../../platform/errors.js';
import { recordLogin, recordOperation } from '../../platform/oplog/oplog.js';
import type { AuthedContext, RequestContext } from '../../platform/http/context.js';
import { MiniProgramLoginError, type MiniProgramIdentity, type MiniProgramLogin } from '../../platform/wechat/index.js';
import { accountDisabled } from '../../platform/auth/login-errors.js';
import { limitLoginRate } from '../../platform/auth/login-guard.js';
import { endSession, loginResponse, rememberLogin, type LoginResponse } from '../../platform/auth/session-answer.js';
import * as memberRepo from './member.repository.js';
import type { MpLoginRequest } from './member.schemas.js';
import { MemberError } from './member.errors.js';

export { MemberError };

export const RegisterTerminal = { APP: 1, MINI_PROGRAM: 2 } as const;

/** Member tokens serve the mini-program channel only, whichever prefix the login came through. */
const MEMBER_CHANNEL = 'mp' as const;

export function createMemberAuthService(deps: {
  db: Db;
  store: Store;
  tokens: TokenService;
  miniProgram: MiniProgramLogin;
  loginRatePerMin: number;
}) {
  const { db, tokens, miniProgram } = deps;

  async function exchange(code: string): Promise<MiniProgramIdentity> {
    try {
      return await miniProgram.exchangeCode(code);
    } catch (err) {
      if (err instanceof MiniProgramLoginError && err.reason === 'rejected') {
        throw new AppError(MemberError.MP_LOGIN_FAILED, `mini-program login failed: ${err.message.slice(0, 200)}`);
      }
      // The cause reaches the log (errcode 503 is logged with its error), never the client: it may name hosts.
      throw new AppError(
        ErrorCode.UNAVAILABLE,
        'the WeChat login service is unavailable, please try again later',
        200,
        { cause: err },
      );
    }
  }

  return {
    /** Mini-program authorised login: the first login of an open id registers its member. */
    async login(ctx: RequestContext, input: MpLoginRequest): Promise<LoginResponse> {
      await limitLoginRate(deps.store, deps.loginRatePerMin, ctx.ip);
      const identity = await exchange(input.code);

      const outcome = await inTransaction(db, async (trx) => {
        const member = await memberRepo.upsertOnLogin(trx, {
          openId: identity.openId,
          unionId: identity.unionId,
          ip: ctx.ip,
          terminal: ctx.channel === 'app' ? RegisterTerminal.APP : RegisterTerminal.MINI_PROGRAM,
          nickname: input.nickname?.trim() || null,
          avatar: input.avatar?.trim() || null,
          at: new Date(),
        });
        if (!member)
          return { ok: false as const, refusedId: await memberRepo.findMemberIdByOpenId(trx, identity.openId) };
        const account = memberRepo.memberAccount(member);
        const issued = await tokens.issue(trx, account, MEMBER_CHANNEL, ctx.ip);
        await recordLogin(trx, ctx, {
          accountKind: 'member',
          accountId: member.id,
          username: member.openId,
          success: true,
          errcode: 0,
          message: null,
        });
        await recordOperation(trx, ctx, member.id, { success: true, errcode: 0, account });
        return { ok: true as const, member, account, issued };
      });
      if (!outcome.ok) {
        const error = accountDisabled();
        await recordLogin(db, ctx, {
          accountKind: 'member',
          accountId: outcome.refusedId,
          username: identity.openId,
          success: false,
          errcode: error.errcode,
          message: error.message,
        });
        throw error;
      }
      const { member, account, issued } = outcome;
      // A disable that committed after this login's transaction has deleted its token row: refused.
      const lost = await rememberLogin(tokens, issued, account, MEMBER_CHANNEL);
      if (lost) {
        await recordLogin(db, ctx, {
          accountKind: 'member',
          accountId: member.id,
          username: identity.openId,
          success: false,
          errcode: lost.errcode,
          message: lost.message,
        });
        throw lost;
      }
      return loginResponse(member, issued);
    },

    logout: (ctx: AuthedContext) => endSession(db, tokens, ctx),
  };
}

export type MemberAuthService = ReturnType<typeof createMemberAuthService>;
