import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import type { Store } from '../store/store.js';
import { forbidden, unauthorized } from '../errors.js';
import { hasPermission } from '../auth/permissions.js';
import { verifyOpenSignature } from '../auth/open-signature.js';
import { hashToken, tokenFromHeader } from '../auth/token-codec.js';
import type { TokenService } from '../auth/tokens.js';
import type { Channel } from './context.js';
import type { AuthRule } from './routes.js';

/** Decides who is calling (DESIGN.md §5.3–5.6) and fills the request context with it. */
export class Authenticator {
  constructor(
    private readonly db: Db,
    private readonly store: Store,
    private readonly tokens: TokenService,
  ) {}

  async authenticate(request: FastifyRequest, channel: Channel, rule: AuthRule, permission?: string): Promise<void> {
    if (rule === 'public') return;
    const ctx = request.ctx;
    if (rule === 'open' && request.headers['x-app-key'] !== undefined) {
      ctx.account = await verifyOpenSignature(this.db, this.store, {
        method: request.method,
        path: request.url.split('?')[0],
        headers: request.headers,
        rawBody: request.rawBody,
      });
      return;
    }
    const token = tokenFromHeader(request.headers.authorization);
    if (!token) throw unauthorized('not logged in: send Authorization: Bearer <accessToken>');
    const hash = hashToken(token);
    const session = await this.tokens.resolve(hash);
    if (!session) throw unauthorized('the access token is invalid or has expired');
    // A token serves the channel it was issued for; a staff token also serves the open channel.
    const kinds = rule === 'open' ? ['admin'] : rule.kinds;
    const channelOk = session.channel === channel || (rule === 'open' && session.channel === 'manage');
    if (!channelOk || !kinds.includes(session.account.kind)) {
      throw unauthorized('this token is not valid for this channel');
    }
    ctx.account = session.account;
    ctx.tokenHash = hash;
    if (permission && session.account.kind === 'admin' && !hasPermission(session.account, permission)) {
      throw forbidden(`no permission: ${permission} is required`);
    }
  }
}
