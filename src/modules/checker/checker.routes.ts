import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import type { CheckerAuthService } from './checker-auth.service.js';
import { CheckerLoginRequest, CheckerLoginResponse } from './checker.schemas.js';
import { ErrorCode } from '../../platform/errors.js';
import { AuthError } from '../../platform/auth/login-errors.js';

const tags = ['checker'];
const MODULE = '核销员';

export function checkerRoutes(svc: { auth: CheckerAuthService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/checkerLogin',
      errcodes: [AuthError.BAD_CREDENTIALS, AuthError.ACCOUNT_DISABLED, ErrorCode.LOCKED, ErrorCode.TOO_MANY_REQUESTS],
      channels: ['app'],
      auth: 'public',
      operation: [MODULE, '核销员登录'],
      summary: 'Verifier login with mobile and password; answers the tokens and what the verifier may check at',
      tags,
      body: CheckerLoginRequest,
      response: CheckerLoginResponse,
      handler: (ctx, { body }) => svc.auth.login(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/checkerLogout',
      channels: ['app'],
      auth: { kinds: ['checker'] },
      operation: [MODULE, '核销员退出'],
      summary: 'End the verifier session; its token stops working at once',
      tags,
      response: null,
      handler: (ctx) => svc.auth.logout(authed(ctx)),
    }),
  ];
}
