import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { VerifierService } from './verifier.service.js';
import {
  CheckerAddRequest,
  CheckerAddResponse,
  CheckerIdRequest,
  CheckerListRequest,
  CheckerPageRequest,
  CheckerRelationRequest,
  CheckerResponse,
  CheckerStatusRequest,
  CheckerUpdateRequest,
  PasswordResponse,
  RelationResponse,
} from './verifier.schemas.js';

const tags = ['checker admin'];
const staff = { kinds: ['admin' as const] };
const MODULE = '核销员管理';
const READ = 'checker:read';
const WRITE = 'checker:write';

/** Verifier administration on the manage channel (issue 15; the spec shows none). */
export function verifierRoutes(svc: VerifierService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/checker/addChecker',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增核销员'],
      summary:
        'Add a verifier with a generated first password (answered this once) and, optionally, where it may check; 409 when an enabled verifier already has the mobile',
      tags,
      body: CheckerAddRequest,
      response: CheckerAddResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/updateChecker',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改核销员'],
      summary: "Update a verifier's mobile, name or kiosk flag",
      tags,
      body: CheckerUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/updateCheckerStatus',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '启用/停用核销员'],
      summary:
        'Enable (1) or disable (0) a verifier; disabling ends its app sessions at once; enabling is refused (409) while another enabled verifier has its mobile',
      tags,
      body: CheckerStatusRequest,
      response: null,
      handler: (ctx, { body }) => svc.setStatus(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/resetCheckerPassword',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '重置核销员密码'],
      summary: 'Give a verifier a new generated password (answered this once); its sessions end at once',
      tags,
      body: IdRequest,
      response: PasswordResponse,
      handler: (ctx, { body }) => svc.resetPassword(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/updateCheckerRelation',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '设置核销范围'],
      summary:
        "Replace where a verifier may check: SKUs of its merchant (its shop's when it has one), each at one gate or at all gates",
      tags,
      body: CheckerRelationRequest,
      response: Type.Array(RelationResponse),
      handler: (ctx, { body }) => svc.setRelations(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/queryCheckerRelationList',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Where a verifier may check',
      tags,
      body: CheckerIdRequest,
      response: Type.Array(RelationResponse),
      handler: (ctx, { body }) => svc.relations(authed(ctx), body.checkerId),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/getChecker',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One verifier with where it may check',
      tags,
      body: IdRequest,
      response: CheckerResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/queryCheckerList',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Verifiers matching the filters (keywords in name and mobile; skuId: related to that SKU), newest first',
      tags,
      body: CheckerListRequest,
      response: Type.Array(CheckerResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/queryCheckerPage',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of verifiers matching the filters, newest first',
      tags,
      body: CheckerPageRequest,
      response: PageInfo(CheckerResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
