import type { Db } from '../db/database.js';
import type { IssuedTokens, TokenService } from './tokens.js';
import { unauthorized, type AppError } from '../errors.js';
import type { Account, AuthedContext, Channel } from '../http/context.js';
import { recordOperation } from '../oplog/oplog.js';
import { formatDateTime } from '../time.js';

/** LoginResponse of spec A 2.3, shared by staff and mini-program logins. */
export interface LoginResponse {
  userId: number;
  openId: string | null;
  mobile: string | null;
  accessToken: string;
  refreshToken: string;
  expiresTime: string | null;
}

export function loginResponse(
  user: { id: number; openId: string | null; mobile: string | null },
  issued: IssuedTokens,
): LoginResponse {
  return {
    userId: user.id,
    openId: user.openId,
    mobile: user.mobile,
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
    expiresTime: formatDateTime(issued.expiresTime),
  };
}

/** Every logout (spec A 4.1 rule 2): the token and its session stop working at once, and it is logged. */
export async function endSession(db: Db, tokens: TokenService, ctx: AuthedContext): Promise<void> {
  await tokens.revoke(ctx.tokenHash);
  await recordOperation(db, ctx, ctx.account.id);
}

/**
 * Caches a login's session once its token row has committed; a revocation of the account (disable, new
 * password, new roles) that ran in between leaves nothing cached, and the login is refused with the
 * error answered here.
 */
export async function rememberLogin(
  tokens: TokenService,
  issued: IssuedTokens,
  account: Account,
  channel: Channel,
): Promise<AppError | null> {
  return (await tokens.remember(issued, account, channel)) ? null : sessionEndedAtLogin();
}

const sessionEndedAtLogin = () => unauthorized('the account was changed while logging in, please log in again');
