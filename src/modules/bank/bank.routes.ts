import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { PageInfo } from '../../platform/http/schemas.js';
import type { ActivationService } from './activation.service.js';
import type { BankAuthService } from './bank-auth.service.js';
import type { BankStatService } from './bank-stat.service.js';
import {
  ActivationData,
  ActivationDetailItemResponse,
  ActivationDetailListRequest,
  BankCardActivateRequest,
  BankLoginData,
  BankLoginRequest,
  BankStatRequest,
  BankStatResponse,
  BankUserLoginData,
  BankUserLoginRequest,
  ExportBankStatDetailRequest,
  OpenapiChannelOperator,
  OpenapiResponse,
  SendSmsCodeRequest,
  SendSmsCodeResponse,
} from './bank.schemas.js';
import { XLSX_FILE } from '../../platform/export/xlsx-export.js';
import { ErrorCode } from '../../platform/errors.js';
import { SmsError } from '../../platform/sms/sms.errors.js';
import { AuthError } from '../../platform/auth/login-errors.js';
import { BankError } from './bank.errors.js';

const tags = ['bank'];
/** Bank sessions only: a staff token is refused here, as a bank token is on every staff route. */
const bank = { kinds: ['bank' as const] };
const MODULE = '银行渠道';

/** Spec B 4.4, channel M, plus the SMS codes and the logout the bank logins need. */
export function bankRoutes(svc: {
  auth: BankAuthService;
  activation: ActivationService;
  stat: BankStatService;
}): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/bank/sendSmsCode',
      errcodes: [SmsError, BankError.NOT_AN_OPERATOR, ErrorCode.UNAUTHORIZED, ErrorCode.TOO_MANY_REQUESTS],
      channels: ['manage'],
      auth: 'public',
      summary:
        'Text an SMS code for bankLogin (login), bankUserLogin (user-login) or activateBankCard (activate). ' +
        'login and user-login need no token; a login code is texted only to a bank user (same answer otherwise), ' +
        'a user-login code to any valid phone (bankUserLogin answers 502 when the phone has no activation); ' +
        'activate needs a bank operator token',
      tags,
      body: SendSmsCodeRequest,
      response: SendSmsCodeResponse,
      handler: (ctx, { body }, { request }) => svc.auth.sendCode(ctx, body, request.headers.authorization),
    }),
    defineRoute({
      method: 'POST',
      path: '/bank/bankLogin',
      errcodes: [AuthError.BAD_CREDENTIALS, AuthError.ACCOUNT_DISABLED, ErrorCode.LOCKED, ErrorCode.TOO_MANY_REQUESTS],
      channels: ['manage'],
      auth: 'public',
      summary:
        'Bank staff login with mobile, password and SMS code; OpenapiResponse code 200 with the tokens, 500 code expired, 501 code wrong',
      tags,
      body: BankLoginRequest,
      response: OpenapiResponse(BankLoginData),
      handler: (ctx, { body }) => svc.auth.login(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/bank/bankUserLogin',
      errcodes: [AuthError.ACCOUNT_DISABLED, ErrorCode.UNAUTHORIZED, ErrorCode.TOO_MANY_REQUESTS],
      channels: ['manage'],
      auth: 'public',
      summary:
        'Card holder login with mobile and SMS code; OpenapiResponse 200 with member tokens (for /mp-api) and the bound cards, ' +
        '500 code expired, 501 code wrong, 502 no activation for this phone',
      tags,
      body: BankUserLoginRequest,
      response: OpenapiResponse(BankUserLoginData),
      handler: (ctx, { body }) => svc.auth.userLogin(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/bank/logout',
      channels: ['manage'],
      auth: bank,
      summary: 'End the bank session; its token stops working at once',
      tags,
      response: null,
      handler: (ctx) => svc.auth.logout(authed(ctx)),
    }),
    defineRoute({
      method: 'POST',
      path: '/bank/activateBankCard',
      errcodes: [BankError],
      channels: ['manage'],
      auth: bank,
      operation: [MODULE, '银行卡激活'],
      summary:
        "Activate a card of the channel's pool for a person (operator session, SMS code of the person's phone); " +
        'OpenapiResponse 200, 500/501 SMS code, 503 operator quota (total or today) used up, 504 phone or ID number already activated in the channel',
      tags,
      body: BankCardActivateRequest,
      response: OpenapiResponse(ActivationData),
      handler: (ctx, { body }) => svc.activation.activate(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/bank/bankOperatorList',
      channels: ['manage'],
      auth: bank,
      summary: "The bank's operators with their quotas (an operator sees itself)",
      tags,
      response: Type.Array(OpenapiChannelOperator),
      handler: (ctx) => svc.stat.operators(authed(ctx)),
    }),
    defineRoute({
      method: 'POST',
      path: '/bank/bankStat',
      channels: ['manage'],
      auth: bank,
      summary:
        'Activations per operator: num (matching userPhone, activeTimeRange, cardNumber), totalNum, dayNum (today)',
      tags,
      body: BankStatRequest,
      response: PageInfo(BankStatResponse),
      handler: (ctx, { body }) => svc.stat.stat(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: '/bank/getActivationDetailList',
      channels: ['manage'],
      auth: bank,
      summary:
        'Activation records, newest first (activeStatus 0 confirming, 1 bound; both when omitted); ID numbers masked without bank:export:plain',
      tags,
      body: ActivationDetailListRequest,
      response: PageInfo(ActivationDetailItemResponse),
      handler: (ctx, { body }) => svc.stat.details(authed(ctx), body),
    }),
    defineRoute({
      method: 'ANY',
      path: '/bank/exportBankStatDetail',
      channels: ['manage'],
      auth: bank,
      operation: [MODULE, '导出激活明细'],
      summary:
        'The activation records matching the bankStat filters (and activeStatus) as a streamed xlsx; holder details from the card binding; ' +
        'ID numbers masked without bank:export:plain',
      tags,
      body: ExportBankStatDetailRequest,
      response: 'file',
      file: XLSX_FILE,
      handler: (ctx, { body }) => svc.stat.export(authed(ctx), body),
    }),
  ];
}
