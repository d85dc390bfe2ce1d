import type { Db } from '../../platform/db/database.js';
import type { IssuedTokens, TokenService } from '../../platform/auth/tokens.js';
import { findByAccessHash } from '../../platform/auth/token.repository.js';
import { unauthorized } from '../../platform/errors.js';
import type { Account, AuthedContext, Channel } from '../../platform/http/context.js';
import { recordOperation } from '../../platform/oplog/oplog.js';
import { formatDateTime } from '../../platform/time.js';

/** LoginResponse of spec A 2.3, shared by staff and mini-program logins. */
export interface LoginResponse {
  userId: number;
  openId: string | null;
  mobile: string | null;
  accessToken: string;
  refreshToken: string;
  expiresTime: string | null;
}

export function loginResponse(user: { id: number; openId: string | null; mobile: string | null }, issued: IssuedTokens): LoginResponse {
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
 * Caches a login's session once its token row has committed. A revocation of the account (disable, new
 * password, new roles) that ran between that commit and this call deleted the row and the cached
 * sessions before this one was cached, so the row is looked for after caching: gone, the session is
 * dropped again and the login refused (revokeAccount deletes the row first, then the cache).
 */
export async function rememberLogin(db: Db, tokens: TokenService, issued: IssuedTokens, account: Account, channel: Channel): Promise<void> {
  await tokens.remember(issued, account, channel);
  if (await findByAccessHash(db, issued.accessHash)) return;
  await tokens.revoke(issued.accessHash);
  throw sessionEndedAtLogin();
}

export const sessionEndedAtLogin = () => unauthorized('the account was changed while logging in, please log in again');
