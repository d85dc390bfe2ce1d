import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import {
  ShopAddRequest,
  ShopAddResponse,
  ShopListRequest,
  ShopPageRequest,
  ShopResponse,
  ShopUpdateRequest,
} from './shop.schemas.js';
import type { ShopService } from './shop.service.js';

const tags = ['shop'];
const staff = { kinds: ['admin' as const] };
const MODULE = '门店管理';
const READ = 'shop:read';
const WRITE = 'shop:write';

/** Spec B 4.6 addShop, channel M; get, list, page, update and delete are what operators need besides. */
export function shopRoutes(svc: ShopService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/shop/addShop',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增门店'],
      summary:
        'Add a shop with its top-level department, a default shop user (password generated and shown only here) and its relations, in one transaction',
      tags,
      body: ShopAddRequest,
      response: ShopAddResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/shop/updateShop',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改门店'],
      summary:
        'Update a shop (absent fields kept, "" clears; relationList when given replaces them; status 3/4 suspends or closes it)',
      tags,
      body: ShopUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/shop/deleteShop',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '删除门店'],
      summary: 'Delete a shop without business records, with its departments and staff accounts (logical delete)',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/shop/getShop',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One shop with its relations',
      tags,
      body: IdRequest,
      response: ShopResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/shop/queryShopList',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Shops matching the filters, newest first',
      tags,
      body: ShopListRequest,
      response: Type.Array(ShopResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/shop/queryShopPage',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of shops matching the filters, newest first',
      tags,
      body: ShopPageRequest,
      response: PageInfo(ShopResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
