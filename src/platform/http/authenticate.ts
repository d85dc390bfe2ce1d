import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import type { Store } from '../store/store.js';
import { forbidden, unauthorized } from '../errors.js';
import { hasPermission } from '../auth/permissions.js';
import { sha256Hex, verifyOpenSignature } from '../auth/open-signature.js';
import { hashToken, tokenFromHeader } from '../auth/token-codec.js';
import type { TokenService } from '../auth/tokens.js';
import type { Account, Channel } from './context.js';
import type { AuthRule } from './routes.js';

/** A signed open-channel call, which can only be checked once the whole body has arrived. */
export function isSignedCall(request: FastifyRequest, rule: AuthRule): boolean {
  return rule === 'open' && request.headers['x-app-key'] !== undefined;
}

/** Decides who is calling (docs/architecture.md §5.3–5.6) and fills the request context with it. */
export class Authenticator {
  constructor(
    private readonly db: Db,
    private readonly store: Store,
    private readonly tokens: TokenService,
  ) {}

  /**
   * Token sessions, checked before the body is read (a stranger's upload or large body is refused
   * before it is parsed). A token serves the channel it was issued for; a staff token also serves
   * the open channel, where the route's permission applies to it as on the manage channel.
   */
  async authenticateToken(
    request: FastifyRequest,
    channel: Channel,
    rule: AuthRule,
    permission: string | undefined,
  ): Promise<void> {
    if (rule === 'public' || isSignedCall(request, rule)) return;
    const token = tokenFromHeader(request.headers.authorization);
    if (!token) throw unauthorized('not logged in: send Authorization: Bearer <accessToken>');
    const hash = hashToken(token);
    const session = await this.tokens.resolve(hash);
    if (!session) throw unauthorized('the access token is invalid or has expired');
    const kinds = rule === 'open' ? ['admin'] : rule.kinds;
    const channelOk = session.channel === channel || (rule === 'open' && session.channel === 'manage');
    if (!channelOk || !kinds.includes(session.account.kind)) {
      throw unauthorized('this token is not valid for this channel');
    }
    const ctx = request.ctx;
    ctx.account = session.account;
    ctx.tokenHash = hash;
    ctx.sessionId = session.sessionId;
    requirePermission(session.account, permission);
  }

  /** Open-channel signatures (docs/architecture.md §5.5), over the hash of the raw body as received. */
  async authenticateSignature(request: FastifyRequest, rule: AuthRule): Promise<void> {
    if (!isSignedCall(request, rule)) return;
    request.ctx.account = await verifyOpenSignature(this.db, this.store, {
      method: request.method,
      path: request.url.split('?')[0],
      headers: request.headers,
      bodySha256: request.bodySha256 ?? sha256Hex(request.rawBody),
    });
  }
}

export function requirePermission(account: Account, permission: string | undefined): void {
  if (permission && account.kind === 'admin' && !hasPermission(account, permission)) {
    throw forbidden(`no permission: ${permission} is required`);
  }
}
