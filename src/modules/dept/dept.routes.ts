import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import { DeptAddRequest, DeptListRequest, DeptPageRequest, DeptResponse, DeptUpdateRequest } from './dept.schemas.js';
import type { DeptService } from './dept.service.js';

const tags = ['dept'];
const staff = { kinds: ['admin' as const] };
const MODULE = '部门管理';
const READ = 'dept:read';
const WRITE = 'dept:write';
const P = '/system/dept';

/** Spec B 4.6 addDept, channel M; get, list, page, update and delete are what operators need besides. */
export function deptRoutes(svc: DeptService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${P}/addDept`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增部门'],
      summary: 'Add a department (under parentId, or at the top with parentId 0)',
      tags,
      body: DeptAddRequest,
      response: DeptResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/updateDept`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改部门'],
      summary: 'Update, move (within its merchant) or disable a department',
      tags,
      body: DeptUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/deleteDept`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '删除部门'],
      summary: 'Delete a department nothing refers to any more (logical delete)',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/getDept`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One department',
      tags,
      body: IdRequest,
      response: DeptResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryDeptList`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'Departments matching the filters, siblings together in their sort order (flat: build the tree from parentId)',
      tags,
      body: DeptListRequest,
      response: Type.Array(DeptResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryDeptPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of departments matching the filters',
      tags,
      body: DeptPageRequest,
      response: PageInfo(DeptResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
