import { stampCheckerLogin } from '../verifier/index.js';
import type { Db } from '../../platform/db/database.js';
import type { Store } from '../../platform/store/store.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { AppError } from '../../platform/errors.js';
import { recordLogin, recordOperation } from '../../platform/oplog/oplog.js';
import type { AuthedContext, RequestContext } from '../../platform/http/context.js';
import { formatDateTime } from '../../platform/time.js';
import { createLoginGuard, limitLoginRate } from '../../platform/auth/login-guard.js';
import { openPasswordSession, type PasswordAccountKind } from '../../platform/auth/login-transaction.js';
import { checkPasswordLogin } from '../../platform/auth/password-login.js';
import { endSession } from '../../platform/auth/session-answer.js';
import * as loginRepo from './checker-login.repository.js';
import * as checkerRepo from './checker.repository.js';
import type { CheckerLoginRequest, CheckerLoginResponse } from './checker.schemas.js';

const CHECKER: PasswordAccountKind = {
  kind: 'checker',
  stamp: stampCheckerLogin,
  channel: 'app',
  lock: loginRepo.lockCheckerForLogin,
  load: loginRepo.loadCheckerAccount,
};

/** Verifier login and logout on /app-api (spec A 4.1 rule 1–2, A §5). */
export function createCheckerAuthService(deps: {
  db: Db;
  store: Store;
  tokens: TokenService;
  loginRatePerMin: number;
}) {
  const { db, tokens } = deps;
  const guard = createLoginGuard(deps.store, 'checker');

  async function refuse(
    ctx: RequestContext,
    mobile: string,
    accountId: number | null,
    error: AppError,
  ): Promise<never> {
    await recordLogin(db, ctx, {
      accountKind: 'checker',
      accountId,
      username: mobile,
      success: false,
      errcode: error.errcode,
      message: error.message,
    });
    throw error;
  }

  /** What the app needs to work at the gate; read before the login transaction, so it stays short. */
  async function workplace(checkerId: number) {
    const [names, skuInfo, configList] = await Promise.all([
      checkerRepo.findCheckerOrgNames(db, checkerId),
      checkerRepo.listCheckerSkus(db, checkerId),
      checkerRepo.listCheckerConfigs(db, checkerId),
    ]);
    const skuIds = skuInfo.map((s) => s.id);
    const [admitted, ticketsSkuList] = await Promise.all([
      checkerRepo.skusAdmittedByCardModels(db, skuIds),
      checkerRepo.listOnShelfTicketsSkus(db, skuIds),
    ]);
    return { ...names, skuInfo, cqySkuList: skuInfo.filter((s) => admitted.has(s.id)), ticketsSkuList, configList };
  }

  return {
    async login(ctx: RequestContext, input: CheckerLoginRequest): Promise<CheckerLoginResponse> {
      const mobile = input.mobile.trim();
      await limitLoginRate(deps.store, deps.loginRatePerMin, ctx.ip);

      const { account: checker, newHash } = await checkPasswordLogin({
        guard,
        name: mobile,
        ip: ctx.ip,
        found: await loginRepo.findCheckerByMobile(db, mobile),
        password: input.password,
        refuse: (accountId, error) => refuse(ctx, mobile, accountId, error),
      });
      const place = await workplace(checker.id);
      const { issued } = await openPasswordSession(deps, CHECKER, {
        ctx,
        checked: checker,
        newHash,
        password: input.password,
        username: mobile,
        // The login is an operation too (its stamp on the verifier and relation records is CHECKER.stamp).
        recordAlso: async (trx, account) => {
          await recordOperation(trx, ctx, checker.id, { success: true, errcode: 0, account });
        },
        refuse: (error) => refuse(ctx, mobile, checker.id, error),
      });
      return {
        userId: checker.id,
        checkerName: checker.name,
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        expiresTime: formatDateTime(issued.expiresTime),
        shopName: place.shopName,
        merchantName: place.merchantName,
        sskFlag: checker.sskFlag,
        skuInfo: place.skuInfo,
        cqySkuList: place.cqySkuList,
        ticketsSkuList: place.ticketsSkuList,
        configList: place.configList,
      };
    },

    logout: (ctx: AuthedContext) => endSession(db, tokens, ctx),
  };
}

export type CheckerAuthService = ReturnType<typeof createCheckerAuthService>;
