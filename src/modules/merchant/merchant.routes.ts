import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { MerchantService } from './merchant.service.js';
import {
  MerchantAddRequest,
  MerchantListRequest,
  MerchantPageRequest,
  MerchantResponse,
  MerchantStatusRequest,
  MerchantUpdateRequest,
} from './merchant.schemas.js';

const tags = ['merchant'];
const staff = { kinds: ['admin' as const] };
const MODULE = '商户管理';
const READ = 'merchant:read';
const WRITE = 'merchant:write';

/** Merchant administration on the manage channel (the spec shows none; issue 15). */
export function merchantRoutes(svc: MerchantService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/merchant/addMerchant',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增商户'],
      summary: 'Add a merchant (platform users only); it starts enabled',
      tags,
      body: MerchantAddRequest,
      response: MerchantResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchant/updateMerchant',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改商户'],
      summary:
        'Update a merchant (absent optional fields are kept, "" clears them); merchant users edit their own merchant\'s details but not its name or type',
      tags,
      body: MerchantUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchant/updateMerchantStatus',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '启用/停用商户'],
      summary:
        "Enable (1) or disable (0) a merchant (platform users only); disabling ends its staff's and verifiers' sessions at once",
      tags,
      body: MerchantStatusRequest,
      response: null,
      handler: (ctx, { body }) => svc.setStatus(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchant/getMerchant',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One merchant',
      tags,
      body: IdRequest,
      response: MerchantResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchant/queryMerchantList',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Merchants matching the filters (keywords in name, contact and address), newest first',
      tags,
      body: MerchantListRequest,
      response: Type.Array(MerchantResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchant/queryMerchantPage',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of merchants matching the filters, newest first',
      tags,
      body: MerchantPageRequest,
      response: PageInfo(MerchantResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
