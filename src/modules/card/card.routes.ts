import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { CardBatchService } from './card-batch.service.js';
import type { CardService } from './card.service.js';
import {
  BatchGenerateRequest,
  BatchIdRequest,
  BatchPageRequest,
  BatchResponse,
  CardActivateRequest,
  CardBindRequest,
  CardPageRequest,
  CardReasonRequest,
  CardRefRequest,
  CardResponse,
} from './card.schemas.js';
import { XLSX_FILE } from '../../platform/export/xlsx-export.js';
import { FaceError } from '../../platform/face/face.errors.js';
import { MemberError } from '../member/index.js';
import { MerchantError } from '../merchant/index.js';
import { CardError } from './card.errors.js';

const tags = ['card'];
const staff = { kinds: ['admin' as const] };
const MODULE = '卡片管理';
const READ = 'card:read';
const WRITE = 'card:write';

/** Card number batches and the life of a card on the manage channel (issue 15). */
export function cardRoutes(svc: { cards: CardService; batches: CardBatchService }): RouteSpec[] {
  const { cards, batches } = svc;
  return [
    defineRoute({
      method: 'POST',
      path: '/card/generateCardBatch',
      errcodes: [CardError.MODEL_DISABLED, CardError.NUMBERS_EXHAUSTED, MerchantError.MERCHANT_DISABLED],
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '生成卡号'],
      summary:
        'Generate up to 100 000 card numbers of a model in one transaction (random, Luhn check digit, unique), held by the given merchant or shop; ' +
        'download them with exportCardBatch',
      tags,
      body: BatchGenerateRequest,
      response: BatchResponse,
      handler: (ctx, { body }) => batches.generate(authed(ctx), body),
    }),
    defineRoute({
      method: 'ANY',
      path: '/card/exportCardBatch',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      operation: [MODULE, '导出卡号'],
      summary: 'The card numbers of a batch as a streamed .xlsx (GET with ?batchId= or POST)',
      tags,
      body: BatchIdRequest,
      response: 'file',
      file: XLSX_FILE,
      handler: (ctx, { body }) => batches.export(authed(ctx), body.batchId),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/getCardBatch',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One card batch',
      tags,
      body: IdRequest,
      response: BatchResponse,
      handler: (ctx, { body }) => batches.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/queryCardBatchPage',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of card batches, newest first',
      tags,
      body: BatchPageRequest,
      response: PageInfo(BatchResponse),
      handler: (ctx, { body }) => batches.page(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/activateCard',
      errcodes: [CardError],
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '激活卡'],
      summary:
        "Activate (sell) a card by id or number: channel, active time (default now), expiry (default active time + the model's validity), seller shop, sales account",
      tags,
      body: CardActivateRequest,
      response: CardResponse,
      handler: (ctx, { body }) => cards.activate(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/bindCard',
      errcodes: [CardError, MemberError.FACE_ENROLLED_ELSEWHERE, MemberError.FACE_ENROLMENT_BUSY, FaceError],
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '绑定卡'],
      summary:
        'Bind an activated card to its holder (name, phone, ID type and number checked; an optional face photo is enrolled for face check-in)',
      tags,
      body: CardBindRequest,
      response: CardResponse,
      handler: (ctx, { body }) => cards.bind(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/unbindCard',
      errcodes: [CardError],
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '解绑卡'],
      summary: "End a card's binding (the record stays); a bound card becomes free for a new holder",
      tags,
      body: CardReasonRequest,
      response: null,
      handler: (ctx, { body }) => cards.unbind(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/disableCard',
      errcodes: [CardError],
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '停用卡'],
      summary: 'Disable a card (lost, reported): it cannot be checked in, activated or bound',
      tags,
      body: CardReasonRequest,
      response: null,
      handler: (ctx, { body }) => cards.disable(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/enableCard',
      errcodes: [CardError],
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '启用卡'],
      summary: 'Enable a disabled card again (bound, unbound or expired, as it now is)',
      tags,
      body: CardReasonRequest,
      response: null,
      handler: (ctx, { body }) => cards.enable(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/getCard',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One card by id or number, with its holder',
      tags,
      body: CardRefRequest,
      response: CardResponse,
      handler: (ctx, { body }) => cards.get(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/card/queryCardPage',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'A page of cards (filters: model, status, number or its beginning, holder phone, ID number, batch, medium, channel, seller, activation), newest first',
      tags,
      body: CardPageRequest,
      response: PageInfo(CardResponse),
      handler: (ctx, { body }) => cards.page(authed(ctx), body),
    }),
  ];
}
