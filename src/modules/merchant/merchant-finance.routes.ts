import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { MerchantFinanceService } from './merchant-finance.service.js';
import {
  MerchantFinanceAddRequest,
  MerchantFinanceListRequest,
  MerchantFinancePageRequest,
  MerchantFinanceResponse,
  MerchantFinanceUpdateRequest,
} from './merchant-finance.schemas.js';

const tags = ['merchantFinance'];
const staff = { kinds: ['admin' as const] };
const MODULE = '商户财务信息';
const READ = 'merchantFinance:read';
const WRITE = 'merchantFinance:write';

/** Merchant finance accounts on the manage channel (spec B 2.3 shows the record, not its operations). */
export function merchantFinanceRoutes(svc: MerchantFinanceService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/merchantFinance/addMerchantFinance',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增商户财务信息'],
      summary:
        'Add a bank account of a merchant (no shopId) or of one of its shops; ebankType 1 (default) is the one getInvoiceSettlementCard shows. One living account per owner and ebankType (409 for a second); bankAccount is stored as digits only',
      tags,
      body: MerchantFinanceAddRequest,
      response: MerchantFinanceResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchantFinance/updateMerchantFinance',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改商户财务信息'],
      summary:
        "Update a finance account (absent fields are kept); merchantId and shopId, when sent, must be the record's own",
      tags,
      body: MerchantFinanceUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchantFinance/deleteMerchantFinance',
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '删除商户财务信息'],
      summary: 'Delete a finance account (logical delete; a new one may then be added)',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchantFinance/getMerchantFinance',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One finance account',
      tags,
      body: IdRequest,
      response: MerchantFinanceResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchantFinance/queryMerchantFinanceList',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'Finance accounts matching the filters (keywords in account name, bank, merchant and shop names), newest first',
      tags,
      body: MerchantFinanceListRequest,
      response: Type.Array(MerchantFinanceResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/merchantFinance/queryMerchantFinancePage',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of finance accounts matching the filters, newest first',
      tags,
      body: MerchantFinancePageRequest,
      response: PageInfo(MerchantFinanceResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
