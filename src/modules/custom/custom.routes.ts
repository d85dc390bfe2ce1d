import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { PageInfo } from '../../platform/http/schemas.js';
import {
  BatchAddRefusal,
  BatchAddRequest,
  BatchAddResponse,
  CustomDisAddRequest,
  CustomDisListRequest,
  CustomDisPageRequest,
  CustomDisResponse,
  CustomDisUpdateRequest,
  CustomDisUserAddRequest,
  CustomDisUserListRequest,
  CustomDisUserPageRequest,
  CustomDisUserResponse,
  CustomDisUserUpdateRequest,
} from './custom.schemas.js';
import type { CustomService } from './custom.service.js';

const tags = ['custom'];
const staff = { kinds: ['admin' as const] };
const MODULE = '分销商';
const READ = 'custom:read';
const WRITE = 'custom:write';
const P = '/custom';

/** Spec A 4.6: eight operations on channel M and batchAdd on channel O (signed call or staff token). */
export function customRoutes(svc: CustomService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${P}/addCustomDis`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增分销商'],
      summary:
        'Add a custom distributor of your merchant (or shop); answers the record (nothing is required: a name may follow)',
      tags,
      body: CustomDisAddRequest,
      response: CustomDisResponse,
      handler: (ctx, { body }) => svc.addDis(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/updateCustomDis`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改分销商'],
      summary: 'Change the given fields of a distributor (status 0 disables it)',
      tags,
      body: CustomDisUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.updateDis(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryCustomDisList`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Distributors matching the filters, newest first',
      tags,
      body: CustomDisListRequest,
      response: Type.Array(CustomDisResponse),
      handler: (ctx, { body }) => svc.listDis(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryCustomDisPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of distributors matching the filters, newest first',
      tags,
      body: CustomDisPageRequest,
      response: PageInfo(CustomDisResponse),
      handler: (ctx, { body }) => svc.pageDis(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/addCustomDisUser`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增分销商用户'],
      summary:
        'Add a user to an enabled distributor of yours, or without customDisId one of your merchant (or shop) to attach later; answers the record',
      tags,
      body: CustomDisUserAddRequest,
      response: CustomDisUserResponse,
      handler: (ctx, { body }) => svc.addUser(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/updateCustomDisUser`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改分销商用户'],
      summary: 'Change the given fields of a distributor user (customDisId moves it; status 0 disables it)',
      tags,
      body: CustomDisUserUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.updateUser(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryCustomDisUserList`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Distributor users matching the filters, newest first',
      tags,
      body: CustomDisUserListRequest,
      response: Type.Array(CustomDisUserResponse),
      handler: (ctx, { body }) => svc.listUsers(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryCustomDisUserPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of distributor users matching the filters, newest first',
      tags,
      body: CustomDisUserPageRequest,
      response: PageInfo(CustomDisUserResponse),
      handler: (ctx, { body }) => svc.pageUsers(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/batchAdd`,
      channels: ['open'],
      auth: 'open',
      permission: WRITE,
      operation: [MODULE, '批量新增分销商用户'],
      summary:
        'Add up to 500 users to one distributor in one transaction; any invalid row refuses the whole batch, naming every failing row and field (details in data.errors)',
      tags,
      body: BatchAddRequest,
      response: BatchAddResponse,
      errorData: BatchAddRefusal,
      handler: (ctx, { body }) => svc.batchAdd(ctx, body),
    }),
  ];
}
