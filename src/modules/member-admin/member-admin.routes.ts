import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest } from '../../platform/http/schemas.js';
import type { MemberAdminService } from './member-admin.service.js';
import { MemberAdminResponse, MemberStatusRequest } from './member-admin.schemas.js';

const tags = ['member admin'];
const staff = { kinds: ['admin' as const] };

/** Members on the manage channel: one member, and enabling or disabling it (issue 15). */
export function memberAdminRoutes(svc: MemberAdminService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/member/getMember',
      channels: ['manage'],
      auth: staff,
      permission: 'member:read',
      summary: 'One member with its bound cards (merchant and shop users: a member holding a card they sold)',
      tags,
      body: IdRequest,
      response: MemberAdminResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/member/updateMemberStatus',
      channels: ['manage'],
      auth: staff,
      permission: 'member:write',
      operation: ['会员管理', '启用/停用会员'],
      summary: 'Enable (1) or disable (0) a member (platform users only); disabling ends its sessions at once',
      tags,
      body: MemberStatusRequest,
      response: null,
      handler: (ctx, { body }) => svc.setStatus(authed(ctx), body),
    }),
  ];
}
