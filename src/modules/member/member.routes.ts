import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import type { MemberAuthService } from './member-auth.service.js';
import { LoginResponse, MpLoginRequest } from './member.schemas.js';

const tags = ['member'];
const MODULE = '会员';

export function memberRoutes(svc: { auth: MemberAuthService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST', path: '/auth/oauth2', channels: ['app', 'mp'], auth: 'public',
      operation: [MODULE, '小程序登录'],
      summary: 'Mini-program authorised login: exchanges the wx.login() code, registers the member on its first login; '
        + 'the tokens serve /mp-api whichever prefix was called',
      tags, body: MpLoginRequest, response: LoginResponse,
      handler: (ctx, { body }) => svc.auth.login(ctx, body),
    }),
    defineRoute({
      method: 'POST', path: '/auth/logout', channels: ['mp'], auth: { kinds: ['member'] },
      operation: [MODULE, '小程序退出'],
      summary: 'End the member session; its token stops working at once',
      tags, response: null,
      handler: (ctx) => svc.auth.logout(authed(ctx)),
    }),
  ];
}
