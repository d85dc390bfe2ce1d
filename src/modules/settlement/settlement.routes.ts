import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import {
  CalcRequest,
  CheckDetailResponse,
  ConfirmRequest,
  ExportCheckDetailRequest,
  InvoiceRequest,
  PayRequest,
  ReviewRequest,
  SettlementCardAfreshRequest,
  SettlementCardCheckDetailPageRequest,
  SettlementCardInfoResponse,
  SettlementCardPageRequest,
  SettlementSummary,
  VoidRequest,
} from './settlement.schemas.js';
import type { SettlementService } from './settlement.service.js';
import { XLSX_FILE } from '../../platform/export/xlsx-export.js';

const tags = ['settlement'];
const staff = { kinds: ['admin' as const] };
const MODULE = '结算管理';
const READ = 'settlement:read';
/** the settlement merchant's moves: confirm, invoice */
const CONFIRM = 'settlement:confirm';
/** the platform's moves: calc, review, pay, void, afresh */
const WRITE = 'settlement:write';
const DELETE = 'settlement:delete';
const P = '/settlement';

/** Spec B 4.3 (channel M) and the moves of docs/domain.md §3 the spec implies. */
export function settlementRoutes(svc: SettlementService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${P}/getSettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One settlement order with its details',
      tags,
      body: IdRequest,
      response: SettlementCardInfoResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/getInvoiceSettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        "A settlement order for invoicing: merchantFinance is the session user's merchant's account in status 4, the settlement merchant's in 5 and 6, null before",
      tags,
      body: IdRequest,
      response: SettlementCardInfoResponse,
      handler: (ctx, { body }) => svc.getInvoice(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/querySettlementCardPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of settlement orders, newest first (settlementPeriod: orders whose period overlaps it)',
      tags,
      body: SettlementCardPageRequest,
      response: PageInfo(SettlementSummary),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/querySettlementCardCheckDetailPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'A page of the check records a settlement detail was computed from (keywords in tourist name, phone, card number)',
      tags,
      body: SettlementCardCheckDetailPageRequest,
      response: PageInfo(CheckDetailResponse),
      handler: (ctx, { body }) => svc.checkDetailPage(authed(ctx), body),
    }),
    defineRoute({
      method: 'ANY',
      path: `${P}/exportSettlementCardCheckDetailPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'The check records of a settlement detail as a streamed .xlsx with a total row (GET: fields in the query string)',
      tags,
      body: ExportCheckDetailRequest,
      response: 'file',
      file: XLSX_FILE,
      handler: (ctx, { body }) => svc.exportCheckDetails(authed(ctx), body.settlementDetailId, body.keywords),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/confirmSettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: CONFIRM,
      operation: [MODULE, '确认结算单'],
      summary: "The scenic spot's merchant confirms its order: 1 → 2",
      tags,
      body: ConfirmRequest,
      response: null,
      handler: (ctx, { body }) => svc.confirm(authed(ctx), body.id, body.remark),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/calcSettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '计算结算单'],
      summary:
        'The platform calculates the order: 2 → 3, optionally adjusting details (estimationFactor, increaseAmount, decreaseAmount)',
      tags,
      body: CalcRequest,
      response: null,
      handler: (ctx, { body }) => svc.calc(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/reviewSettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '审核结算单'],
      summary: 'The platform reviews the order: 3 → 4 when it passes, 3 → 1 when rejected',
      tags,
      body: ReviewRequest,
      response: null,
      handler: (ctx, { body }) => svc.review(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/uploadSettlementInvoice`,
      channels: ['manage'],
      auth: staff,
      permission: CONFIRM,
      operation: [MODULE, '上传结算发票'],
      summary: 'The settlement merchant hands in its invoice files: 4 → 5',
      tags,
      body: InvoiceRequest,
      response: null,
      handler: (ctx, { body }) => svc.uploadInvoice(authed(ctx), body.id, body.settlementFiles),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/paySettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '支付结算单'],
      summary: 'The platform pays the amount due (exactly) and records the payment: 5 → 6',
      tags,
      body: PayRequest,
      response: null,
      handler: (ctx, { body }) => svc.pay(authed(ctx), body.id, body.amount, body.voucher),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/voidSettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '作废结算单'],
      summary: 'The platform voids an order not yet completed: 1–5 → 9',
      tags,
      body: VoidRequest,
      response: null,
      handler: (ctx, { body }) => svc.voidOrder(authed(ctx), body.id, body.reason),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/afreshSettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '重新计算结算单'],
      summary:
        'Recompute an order in status 1–3 from the current checks and rules (adjustments kept), replacing its check details',
      tags,
      body: SettlementCardAfreshRequest,
      response: null,
      handler: (ctx, { body }) => svc.afresh(authed(ctx), body.settlementId, body.settlementDetailId),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/deleteSettlementCard`,
      channels: ['manage'],
      auth: staff,
      permission: DELETE,
      operation: [MODULE, '删除结算单'],
      summary: 'Delete an order with its details, check details and payments; a settlement-log row is kept',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
  ];
}
