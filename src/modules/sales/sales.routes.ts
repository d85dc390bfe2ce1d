import { Type } from 'typebox';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { SalesService } from './sales.service.js';
import {
  SalesAddRequest,
  SalesListRequest,
  SalesPageRequest,
  SalesResponse,
  SalesUpdateRequest,
} from './sales.schemas.js';

const tags = ['sales'];
const staff = { kinds: ['admin' as const] };
const MODULE = '销售机构';
const READ = 'sales:read';
const WRITE = 'sales:write';

/** Spec A 4.7, channel M. */
export function salesRoutes(svc: SalesService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/sales/addSales',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增销售机构'],
      summary: 'Add a sales institution to a department of your merchant or shop',
      tags,
      body: SalesAddRequest,
      response: SalesResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/sales/updateSales',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改销售机构'],
      summary: 'Update a sales institution (absent optional fields are kept, "" clears them)',
      tags,
      body: SalesUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/sales/deleteSales',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '删除销售机构'],
      summary: 'Delete a sales institution (logical delete; its invite code becomes free)',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/sales/getSales',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One sales institution',
      tags,
      body: IdRequest,
      response: SalesResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/sales/querySalesList',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'Sales institutions matching the filters (name is found within names; keywords in name, phone and invite code)',
      tags,
      body: SalesListRequest,
      response: Type.Array(SalesResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/sales/querySalesPage',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of sales institutions matching the filters, newest first',
      tags,
      body: SalesPageRequest,
      response: PageInfo(SalesResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
