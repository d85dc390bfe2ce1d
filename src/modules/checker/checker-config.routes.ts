import { Type } from 'typebox';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { CheckerConfigService } from './checker-config.service.js';
import {
  CheckerConfigAddRequest,
  CheckerConfigListRequest,
  CheckerConfigPageRequest,
  CheckerConfigResponse,
  CheckerConfigUpdateRequest,
} from './checker-config.schemas.js';

const tags = ['checker'];
const staff = { kinds: ['admin' as const] };
const MODULE = '核销员配置';
const READ = 'checker:read';
const WRITE = 'checker:write';

/** Spec B 4.2, channel M: the settings a verifier's app receives at login. */
export function checkerConfigRoutes(svc: CheckerConfigService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/checker/addCheckerConfig',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增核销员配置'],
      summary:
        'Add a setting to a verifier of your merchant or shop, or without checkerId a default for all of them (one value per item); nothing is required',
      tags,
      body: CheckerConfigAddRequest,
      response: null,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/updateCheckerConfig',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改核销员配置'],
      summary: 'Update a verifier setting (absent fields are kept, "" clears an optional text)',
      tags,
      body: CheckerConfigUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/deleteCheckerConfig',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '删除核销员配置'],
      summary: 'Delete a verifier setting (logical delete; its item becomes free)',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/getCheckerConfig',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One verifier setting',
      tags,
      body: IdRequest,
      response: CheckerConfigResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/queryCheckerConfigList',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Verifier settings matching the filters (keywords in name, item, value, remark and verifier name)',
      tags,
      body: CheckerConfigListRequest,
      response: Type.Array(CheckerConfigResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/queryCheckerConfigPage',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of verifier settings matching the filters, newest first',
      tags,
      body: CheckerConfigPageRequest,
      response: PageInfo(CheckerConfigResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
