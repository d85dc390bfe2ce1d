import { inTransaction } from '../../platform/db/transaction.js';
import { hashToken, tokenFromHeader } from '../../platform/auth/token-codec.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { Db } from '../../platform/db/database.js';
import { tooManyRequests, unauthorized, type AppError } from '../../platform/errors.js';
import type { AuthedContext, RequestContext } from '../../platform/http/context.js';
import { recordLogin } from '../../platform/oplog/oplog.js';
import { enforceRate } from '../../platform/rate-limit.js';
import { SMS_CODE_LIMITS, SmsCodeError, type SmsCodePurpose, type SmsServices } from '../../platform/sms/index.js';
import type { Store } from '../../platform/store/store.js';
import { formatDateTime } from '../../platform/time.js';
import { accountDisabled } from '../../platform/auth/login-errors.js';
import { createLoginGuard, limitLoginRate } from '../../platform/auth/login-guard.js';
import { openPasswordSession, type PasswordAccountKind } from '../../platform/auth/login-transaction.js';
import { checkPasswordLogin } from '../../platform/auth/password-login.js';
import { endSession, rememberLogin } from '../../platform/auth/session-answer.js';
import {
  codeRefusal,
  noActivation,
  notAnOperator,
  openapiOk,
  OpenapiCode,
  type OpenapiRefusal,
} from './bank.errors.js';
import type {
  BankLoginData,
  BankLoginRequest,
  BankUserLoginData,
  BankUserLoginRequest,
  OpenapiAnswer,
  SendSmsCodeRequest,
} from './bank.schemas.js';
import type { BankSessions } from './bank-session.js';
import * as userRepo from './bank-user.repository.js';
import * as holderRepo from './holder.repository.js';

const PURPOSE: Record<SendSmsCodeRequest['purpose'], SmsCodePurpose> = {
  login: 'bank-login',
  'user-login': 'bank-user-login',
  activate: 'bank-activate',
};

/** Login-log errcode of a refusal: SMS-code refusals keep the auth numbers of "expired" and "wrong". */
const logCode = (refusal: OpenapiRefusal) =>
  refusal.code === OpenapiCode.CODE_EXPIRED
    ? SmsCodeError.EXPIRED
    : refusal.code === OpenapiCode.CODE_WRONG
      ? SmsCodeError.WRONG
      : refusal.code;

/** Bank tokens serve the manage channel, where only the bank routes accept them. */
const BANK_CHANNEL = 'manage' as const;
/** The card holder's session is a member session of the mini program. */
const HOLDER_CHANNEL = 'mp' as const;

const BANK_USER: PasswordAccountKind = {
  kind: 'bank',
  stamp: userRepo.stampBankUserLogin,
  channel: BANK_CHANNEL,
  lock: userRepo.lockBankUserForLogin,
  load: userRepo.loadBankAccount,
};

export interface BankAuthDeps {
  db: Db;
  store: Store;
  tokens: TokenService;
  sessions: BankSessions;
  sms: SmsServices;
  loginRatePerMin: number;
}

/** SMS codes, bankLogin, bankUserLogin and logout of the bank channel (spec B 4.4 rules 1, 3, 4). */
export function createBankAuthService(deps: BankAuthDeps) {
  const { db, store, tokens, sessions, sms } = deps;
  const passwordGuard = createLoginGuard(store, 'bank');

  /** The operator session an activation code is requested from (the route itself is login-free). */
  async function operatorSession(authorization: string | undefined): Promise<void> {
    const token = tokenFromHeader(authorization);
    if (!token) throw unauthorized('not logged in: an activation code is requested from a bank operator session');
    const accessHash = hashToken(token);
    const session = await tokens.resolve(accessHash);
    if (!session || session.channel !== BANK_CHANNEL || session.account.kind !== 'bank') {
      throw unauthorized('an activation code is requested from a bank operator session');
    }
    const relations = await sessions.of(session);
    if (!relations.operator) throw notAnOperator();
  }

  /**
   * Login-free codes: one per phone per minute whether or not the phone can use one. A `login` code
   * is texted only to an active bank user (staff are a closed group, and strangers learn nothing); a
   * `user-login` code goes to any valid phone, so bankUserLogin can answer 502 to a phone without an
   * activation (spec B 4.4 rule 4), bounded by the per-IP rate and the shared per-phone limits.
   */
  async function loginFreeSlot(phone: string): Promise<() => Promise<void>> {
    const key = `bank:sms-gap:${phone}`;
    const now = Date.now();
    if (!(await store.setIfAbsent(key, String(now), SMS_CODE_LIMITS.resendGapS))) {
      const since = Number(await store.get(key)) || now;
      const wait = Math.max(1, Math.ceil((since + SMS_CODE_LIMITS.resendGapS * 1000 - now) / 1000));
      throw tooManyRequests(
        `an SMS code was sent to this phone less than a minute ago, please try again in ${wait} second${wait === 1 ? '' : 's'}`,
      );
    }
    return () => store.del(key);
  }

  async function refuseLogin(
    ctx: RequestContext,
    kind: 'bank' | 'member',
    username: string,
    accountId: number | null,
    error: AppError,
  ): Promise<never> {
    await recordLogin(db, ctx, {
      accountKind: kind,
      accountId,
      username,
      success: false,
      errcode: error.errcode,
      message: error.message,
    });
    throw error;
  }

  async function answerRefusal(
    ctx: RequestContext,
    kind: 'bank' | 'member',
    username: string,
    refusal: OpenapiRefusal,
  ): Promise<OpenapiRefusal> {
    await recordLogin(db, ctx, {
      accountKind: kind,
      accountId: null,
      username,
      success: false,
      errcode: logCode(refusal),
      message: refusal.msg,
    });
    return refusal;
  }

  return {
    async sendCode(
      ctx: RequestContext,
      input: SendSmsCodeRequest,
      authorization: string | undefined,
    ): Promise<{ expiresInS: number }> {
      const target = { purpose: PURPOSE[input.purpose], phone: input.phone };
      if (input.purpose === 'activate') {
        await operatorSession(authorization);
        return sms.codes.send(target);
      }
      await enforceRate(store, 'bank-sms-ip', ctx.ip, deps.loginRatePerMin);
      const release = await loginFreeSlot(input.phone);
      if (input.purpose === 'login' && !(await userRepo.isBankUserMobile(db, input.phone)))
        return { expiresInS: SMS_CODE_LIMITS.ttlS };
      try {
        return await sms.codes.send(target);
      } catch (err) {
        await release();
        throw err;
      }
    },

    /** Spec B 4.4 rules 1 and 3: the SMS code, then the password; the session keeps the bank's relations. */
    async login(ctx: RequestContext, input: BankLoginRequest): Promise<OpenapiAnswer<BankLoginData>> {
      const mobile = input.mobile.trim();
      await limitLoginRate(store, deps.loginRatePerMin, ctx.ip);
      const target = { purpose: PURPOSE.login, phone: mobile };
      const refusal = codeRefusal(await sms.codes.check({ ...target, code: input.verifyCode }));
      if (refusal) return answerRefusal(ctx, 'bank', mobile, refusal);

      const { account: user, newHash } = await checkPasswordLogin({
        guard: passwordGuard,
        name: mobile,
        ip: ctx.ip,
        found: await userRepo.findBankUserByMobile(db, mobile),
        password: input.password,
        refuse: (accountId, error) => refuseLogin(ctx, 'bank', mobile, accountId, error),
      });
      const relations = await userRepo.loadBankRelations(db, user.id);
      if (!relations) return refuseLogin(ctx, 'bank', mobile, user.id, accountDisabled());
      const { issued } = await openPasswordSession(deps, BANK_USER, {
        ctx,
        checked: user,
        newHash,
        password: input.password,
        username: mobile,
        refuse: (error) => refuseLogin(ctx, 'bank', mobile, user.id, error),
      });
      await sessions.remember(issued, relations);
      await sms.codes.consume(target);
      return openapiOk({
        userId: user.id,
        mobile: user.mobile,
        name: user.name,
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        expiresTime: formatDateTime(issued.expiresTime),
        businessId: relations.businessId,
        businessName: relations.businessName,
        operatorId: relations.operator?.operatorId ?? null,
        operatorName: relations.operator?.operatorName ?? null,
        channelInfoId: relations.operator?.channelInfoId ?? null,
      });
    },

    /**
     * Spec B 4.4 rule 4: the card holder proves the phone with a code and, when the phone has an
     * activation, gets a member session (mini-program channel) and the cards bound to the phone;
     * a proven phone without one answers 502.
     */
    async userLogin(ctx: RequestContext, input: BankUserLoginRequest): Promise<OpenapiAnswer<BankUserLoginData>> {
      const mobile = input.mobile;
      await limitLoginRate(store, deps.loginRatePerMin, ctx.ip);
      const target = { purpose: PURPOSE['user-login'], phone: mobile };
      const refusal = codeRefusal(await sms.codes.check({ ...target, code: input.verifyCode }));
      if (refusal) return answerRefusal(ctx, 'member', mobile, refusal);

      const holder = await holderRepo.findHolder(db, mobile);
      if (!holder) {
        // Spec B 4.4 rule 4: the phone is proven but holds no benefit. The code is spent, so it cannot be replayed.
        await sms.codes.consume(target);
        return answerRefusal(ctx, 'member', mobile, noActivation());
      }
      if (!holder.enabled) return refuseLogin(ctx, 'member', mobile, holder.memberId, accountDisabled());
      const cards = await holderRepo.listHolderCards(db, mobile);
      const session = await inTransaction(db, async (trx) => {
        // The member as it is now: a disable since findHolder is seen here, one after ends this session.
        const current = await tokens.issueCurrent(trx, 'member', holder.memberId, HOLDER_CHANNEL, ctx.ip);
        if (current)
          await recordLogin(trx, ctx, {
            accountKind: 'member',
            accountId: holder.memberId,
            username: mobile,
            success: true,
            errcode: 0,
            message: null,
          });
        return current;
      });
      if (!session) return refuseLogin(ctx, 'member', mobile, holder.memberId, accountDisabled());
      const { issued, account } = session;
      const lost = await rememberLogin(tokens, issued, account, HOLDER_CHANNEL);
      if (lost) return refuseLogin(ctx, 'member', mobile, holder.memberId, lost);
      await sms.codes.consume(target);
      return openapiOk({
        userId: account.id,
        mobile,
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        expiresTime: formatDateTime(issued.expiresTime),
        cards,
      });
    },

    logout: (ctx: AuthedContext) => endSession(db, tokens, ctx),
  };
}

export type BankAuthService = ReturnType<typeof createBankAuthService>;
