import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { PageInfo } from '../../platform/http/schemas.js';
import type { MemberAuthService } from './member-auth.service.js';
import type { MemberProfileService } from './member-profile.service.js';
import {
  LoginResponse,
  MemberBindPhoneRequest,
  MemberPageRequest,
  MemberPageResponse,
  MemberResponse,
  MemberSendSmsCodeRequest,
  MpLoginRequest,
} from './member.schemas.js';
import { ErrorCode } from '../../platform/errors.js';
import { SmsCodeError, SmsError } from '../../platform/sms/sms.errors.js';
import { AuthError } from '../../platform/auth/login-errors.js';
import { MemberError } from './member.errors.js';

const tags = ['member'];
const MODULE = '会员';
const member = { kinds: ['member' as const] };

export function memberRoutes(svc: { auth: MemberAuthService; profile: MemberProfileService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/oauth2',
      errcodes: [MemberError.MP_LOGIN_FAILED, AuthError.ACCOUNT_DISABLED, ErrorCode.UNAUTHORIZED],
      channels: ['app', 'mp'],
      auth: 'public',
      operation: [MODULE, '小程序登录'],
      summary:
        'Mini-program authorised login: exchanges the wx.login() code, registers the member on its first login; ' +
        'the tokens serve /mp-api whichever prefix was called',
      tags,
      body: MpLoginRequest,
      response: LoginResponse,
      handler: (ctx, { body }) => svc.auth.login(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/logout',
      channels: ['mp'],
      auth: member,
      operation: [MODULE, '小程序退出'],
      summary: 'End the member session; its token stops working at once',
      tags,
      response: null,
      handler: (ctx) => svc.auth.logout(authed(ctx)),
    }),
    defineRoute({
      method: 'POST',
      path: '/member/getMember',
      channels: ['mp'],
      auth: member,
      summary: 'The member of the session',
      tags,
      response: MemberResponse,
      handler: (ctx) => svc.profile.get(authed(ctx)),
    }),
    defineRoute({
      method: 'POST',
      path: '/member/sendSmsCode',
      errcodes: [SmsError, ErrorCode.TOO_MANY_REQUESTS],
      channels: ['mp'],
      auth: member,
      summary:
        'Text a 6-digit code for bindPhone to the phone: valid 5 minutes for this session and phone; ' +
        'one per phone per 60 s and 10 per phone a day (429 beyond)',
      tags,
      body: MemberSendSmsCodeRequest,
      response: null,
      handler: (ctx, { body }) => svc.profile.sendSmsCode(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/member/bindPhone',
      errcodes: [SmsCodeError],
      channels: ['mp'],
      auth: member,
      operation: [MODULE, '绑定手机号'],
      summary:
        'Bind the phone to the member with the code texted by sendSmsCode (1002000004 expired or not requested, ' +
        '1002000005 wrong); the card bindings made with that phone move to the member; 409 when another member holds the phone',
      tags,
      body: MemberBindPhoneRequest,
      response: null,
      handler: (ctx, { body }) => svc.profile.bindPhone(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/member/queryMemberPage',
      channels: ['manage'],
      auth: { kinds: ['admin'] },
      permission: 'member:read',
      summary:
        'A page of members, newest first (mobile matches from its start). Merchant and shop users see the members ' +
        'holding cards their business sold; password is always null',
      tags,
      body: MemberPageRequest,
      response: PageInfo(MemberPageResponse),
      handler: (ctx, { body }) => svc.profile.page(authed(ctx), body),
    }),
  ];
}
