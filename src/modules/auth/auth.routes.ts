import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed, type Channel } from '../../platform/http/context.js';
import { FileResponse } from '../../platform/http/responses.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import { formatDateTime } from '../../platform/time.js';
import {
  LoginRequest,
  LoginResponse,
  RefreshTokenRequest,
  RefreshTokenResponse,
} from '../../platform/auth/login-schemas.js';
import type { CaptchaService } from './captcha.service.js';
import { CAPTCHA_SESSION_TTL_S } from './captcha.service.js';
import type { StaffAuthService } from './staff-auth.service.js';
import { ErrorCode } from '../../platform/errors.js';
import { AuthError } from '../../platform/auth/login-errors.js';

const tags = ['auth'];
const SESSION_COOKIE = 'SESSION';

export function authRoutes(svc: {
  staff: StaffAuthService;
  captcha: CaptchaService;
  tokens: TokenService;
}): RouteSpec[] {
  const refresh = (channel: Channel) =>
    defineRoute({
      method: 'POST',
      path: '/auth/refreshToken',
      errcodes: [ErrorCode.UNAUTHORIZED],
      channels: [channel],
      auth: 'public',
      summary: 'Rotate the access and refresh tokens; the old refresh token stops working',
      tags,
      body: RefreshTokenRequest,
      response: RefreshTokenResponse,
      handler: async (ctx, { body }) => {
        const { issued, account } = await svc.tokens.refresh(body.refreshToken, channel, ctx.ip);
        return {
          userId: account.id,
          accessToken: issued.accessToken,
          refreshToken: issued.refreshToken,
          expiresTime: formatDateTime(issued.expiresTime),
        };
      },
    });

  return [
    defineRoute({
      method: 'GET',
      path: '/auth/getRandomCodeImg',
      errcodes: [ErrorCode.TOO_MANY_REQUESTS],
      channels: ['manage'],
      auth: 'public',
      summary:
        'Four-digit captcha image for staff login (PNG); the key comes back as cookie SESSION and header X-Captcha-Key',
      tags,
      response: 'file',
      file: {
        mediaTypes: ['image/png'],
        description: 'The captcha image, four digits; its code lives 5 minutes',
        headers: {
          'X-Captcha-Key': {
            description: 'the captcha key: send it back as `uuid` in the login body (clients without cookies)',
            required: true,
          },
          'Set-Cookie': {
            description: 'SESSION=<the same key>; HttpOnly; SameSite=Lax (clients with cookies send it back instead)',
            required: true,
          },
        },
      },
      handler: async (ctx, _input, { request, reply }) => {
        const { sessionKey, png } = await svc.captcha.issue(ctx, request.cookies[SESSION_COOKIE]);
        reply.setCookie(SESSION_COOKIE, sessionKey, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          maxAge: CAPTCHA_SESSION_TTL_S,
        });
        return new FileResponse('image/png', png, {
          headers: {
            'cache-control': 'no-store, no-cache, must-revalidate',
            pragma: 'no-cache',
            expires: '0',
            'x-captcha-key': sessionKey,
          },
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/login',
      errcodes: [AuthError, ErrorCode.LOCKED, ErrorCode.TOO_MANY_REQUESTS],
      channels: ['manage'],
      auth: 'public',
      summary: 'Staff login with username, password and the captcha code',
      tags,
      body: LoginRequest,
      response: LoginResponse,
      handler: (ctx, { body }, { request }) => svc.staff.login(ctx, body, request.cookies[SESSION_COOKIE]),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/logout',
      channels: ['manage'],
      auth: { kinds: ['admin'] },
      permission: false,
      operation: ['登录认证', '退出登录'],
      summary: 'End the staff session; its token stops working at once',
      tags,
      response: null,
      handler: (ctx) => svc.staff.logout(authed(ctx)),
    }),
    refresh('manage'),
    refresh('app'),
    refresh('mp'),
  ];
}
