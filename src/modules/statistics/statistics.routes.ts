import { Type } from 'typebox';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { PageInfo } from '../../platform/http/schemas.js';
import {
  CardActiveStatRequest,
  CardActiveStatResponse,
  CardAreaStatRequest,
  CardIssueStatRequest,
  CardIssueStatResponse,
  CardModelProfitAccountingRequest,
  CardModelProfitAccountingResponse,
  DatePairRequest,
  HomeCardCheckNumStatResponse,
  HomeCardSalesAmountStatResponse,
  HomeMemberPortraitStatResponse,
} from './statistics.schemas.js';
import type { StatisticsService } from './statistics.service.js';
import { XLSX_FILE } from '../../platform/export/xlsx-export.js';

const tags = ['statistics'];
const staff = { kinds: ['admin' as const] };
const READ = 'statistics:read';
const P = '/statistics';

/** Spec B 4.1: channel M, statCardModel channel O (signed open apps and staff tokens). */
export function statisticsRoutes(svc: StatisticsService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/profitAccounting/cardModel',
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'Profit accounting of a card model (or of every visible one): activations per channel, entries per resource of its rules, cards by number of uses, bindings',
      tags,
      body: CardModelProfitAccountingRequest,
      response: CardModelProfitAccountingResponse,
      handler: (ctx, { body }) => svc.profit(ctx, body),
    }),
    defineRoute({
      method: 'ANY',
      path: `${P}/exportStatCardIssue`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'statCardIssue as a streamed .xlsx with a total row (GET takes the same fields in the query string)',
      tags,
      body: CardIssueStatRequest,
      response: 'file',
      file: XLSX_FILE,
      handler: (ctx, { body }) => svc.exportCardIssue(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/statCardIssue`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'Activated cards per card model sold in your scope (every status), optionally by seller and activation time',
      tags,
      body: CardIssueStatRequest,
      response: Type.Array(CardIssueStatResponse),
      handler: (ctx, { body }) => svc.cardIssue(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/statCardStat`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Cards in force now (activated, not disabled, not expired) per card model in your scope',
      tags,
      body: CardIssueStatRequest,
      response: Type.Array(CardIssueStatResponse),
      handler: (ctx, { body }) => svc.cardStat(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/statCardModel`,
      channels: ['open'],
      auth: 'open',
      permission: READ,
      summary:
        "Activations per card model, seller, sales account and day or month, with the cards' current state (paged)",
      tags,
      body: CardActiveStatRequest,
      response: PageInfo(CardActiveStatResponse),
      handler: (ctx, { body }) => svc.cardModel(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/statCardArea`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary:
        'Member portrait of the bound holders: gender, age bands and cities (member record first, else the resident ID number)',
      tags,
      body: CardAreaStatRequest,
      response: HomeMemberPortraitStatResponse,
      handler: (ctx, { body }) => svc.cardArea(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/statHomeCardCheckNum`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Entries per card model in the date pair (this month when absent)',
      tags,
      body: DatePairRequest,
      response: Type.Array(HomeCardCheckNumStatResponse),
      handler: (ctx, { body }) => svc.cardCheckNum(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/statHomeCardSalesAmount`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Cards activated and sales in cents per card model in the date pair (this month when absent)',
      tags,
      body: DatePairRequest,
      response: Type.Array(HomeCardSalesAmountStatResponse),
      handler: (ctx, { body }) => svc.cardSalesAmount(ctx, body),
    }),
  ];
}
