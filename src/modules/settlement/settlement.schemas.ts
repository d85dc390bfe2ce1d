import { STATUS_NAMES } from './settlement-status.js';
import { Type, type Static } from 'typebox';
import { DateRange, Id, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';
// MerchantFinance (spec B 2.3) is the merchant module's record, kept by its finance operations.
import { MerchantFinance } from '../merchant/index.js';

/** Spec A 2.6 / B 2.3 shapes shared by estimation and settlement. Money in cents. */

export const TicketPriceInfo = Type.Object(
  {
    startDate: Type.String({ description: 'first day of the price period within the period' }),
    endDate: Type.String({ description: 'last day of the price period within the period' }),
    price: Type.Integer({ description: 'per-check price, cents' }),
    checkNum: Type.Integer(),
    ticketTotalAmount: Type.Integer({ description: 'price × checkNum, cents' }),
    settlementFactor: Type.Number(),
    settlementAmount: Type.Integer({ description: 'round(ticketTotalAmount × settlementFactor), cents' }),
  },
  { title: 'TicketPriceInfo' },
);

/** EstimationCardDetailListResponse, also the element of a settlement order's details. */
export const DetailResponse = Type.Object(
  {
    id: Type.Integer({ description: 'detail id (virtual within a cached estimation)' }),
    cardModelName: Type.String(),
    estimationPeriod: Type.String(),
    resourceId: Type.Integer(),
    sceneryName: Type.String({ description: 'resource name' }),
    merchantId: Nullable(Type.Integer({ description: "the resource's merchant (the settlement merchant)" })),
    settlementWay: Type.String({
      description: 'SettlementWay code "1"–"5" (the spec\'s enums travel as string codes)',
    }),
    checkNum: Type.Integer({ description: 'Σ consume_num of the checks in the period' }),
    ticketPriceInfo: Type.Array(TicketPriceInfo),
    estimationFactor: Type.Number(),
    settlementAmount: Type.Integer(),
    increaseAmount: Type.Integer(),
    decreaseAmount: Type.Integer(),
    settlementAmountActual: Type.Integer({
      description: 'round(settlementAmount × estimationFactor) + increaseAmount − decreaseAmount',
    }),
  },
  { title: 'DetailResponse' },
);
export type DetailResponse = Static<typeof DetailResponse>;

export const CheckDetailResponse = Type.Object(
  {
    cardModelName: Nullable(Type.String()),
    sceneryName: Nullable(Type.String()),
    touristName: Nullable(Type.String()),
    touristPhone: Nullable(Type.String()),
    cardNumber: Nullable(Type.String()),
    checkTime: Nullable(Type.String()),
    checkerId: Nullable(Type.Integer()),
    checkerName: Nullable(Type.String()),
  },
  { title: 'CheckDetailResponse' },
);

const Status = Type.Integer({
  description: `settlementStatus: ${Object.entries(STATUS_NAMES)
    .map(([code, name]) => `${code} ${name}`)
    .join(', ')}`,
});

/** One order in the page (SettlementCardInfoResponse fields without finance and details). */
export const SettlementSummary = Type.Object(
  {
    id: Type.Integer(),
    settlementNo: Type.String(),
    estimationId: Nullable(Type.Integer()),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    settlementPeriod: Type.String(),
    startTime: Type.String(),
    endTime: Type.String(),
    totalAmount: Type.Integer({ description: "cents: Σ of the details' settlementAmountActual" }),
    profit: Type.Integer(),
    issueNum: Type.Integer(),
    checkNum: Type.Integer(),
    settlementStatus: Status,
    settlementFiles: Nullable(Type.String()),
    settlementMerchantId: Type.Integer(),
    settlementMerchantName: Type.String(),
    paidAmount: Type.Integer(),
    remark: Nullable(Type.String()),
    createdTime: Nullable(Type.String()),
  },
  { title: 'SettlementSummary' },
);
export type SettlementSummary = Static<typeof SettlementSummary>;

/** SettlementCardInfoResponse (spec B 2.3), with the order's details. */
export const SettlementCardInfoResponse = Type.Object(
  {
    ...SettlementSummary.properties,
    merchantFinance: Nullable(MerchantFinance),
    statisticData: Type.Record(Type.String(), Type.Unknown()),
    details: Type.Array(DetailResponse),
  },
  { title: 'SettlementCardInfoResponse' },
);
export type SettlementInfo = Static<typeof SettlementCardInfoResponse>;

export const SettlementCardCheckDetailPageRequest = Type.Object(
  {
    ...PageFields,
    settlementDetailId: Id,
    keywords: Opt(Keywords),
  },
  { title: 'SettlementCardCheckDetailPageRequest' },
);
export type CheckDetailPageQuery = Static<typeof SettlementCardCheckDetailPageRequest>;

export const ExportCheckDetailRequest = Type.Object(
  { settlementDetailId: Id, keywords: Opt(Keywords) },
  { title: 'ExportCheckDetailRequest' },
);

export const SettlementCardAfreshRequest = Type.Object(
  { settlementId: Id, settlementDetailId: Id },
  { title: 'SettlementCardAfreshRequest' },
);

const Remark = Type.String({ maxLength: 512 });
/** The most one payment carries (paySettlementCard's amount), so no order may come to be due more. */
export const MAX_PAYABLE_CENTS = 100_000_000_000;
const Cents = Type.Integer({ minimum: 0, maximum: MAX_PAYABLE_CENTS, description: 'cents' });

export const ConfirmRequest = Type.Object({ id: Id, remark: Opt(Remark) }, { title: 'ConfirmRequest' });

export const DetailAdjustment = Type.Object(
  {
    id: Id,
    estimationFactor: Opt(Type.Number({ minimum: 0, maximum: 100, description: 'at most 4 decimals' })),
    increaseAmount: Opt(Cents),
    decreaseAmount: Opt(Cents),
  },
  { title: 'DetailAdjustment' },
);
export const CalcRequest = Type.Object(
  {
    id: Id,
    details: Opt(
      Type.Array(DetailAdjustment, {
        maxItems: 1000,
        description: "optional adjustments of the order's details before review",
      }),
    ),
  },
  { title: 'CalcRequest' },
);
export type CalcRequest = Static<typeof CalcRequest>;

export const ReviewRequest = Type.Object(
  {
    id: Id,
    pass: Type.Boolean({ description: 'true: to pending invoice (4); false: back to pending scenic-spot check (1)' }),
    remark: Opt(Remark),
  },
  { title: 'ReviewRequest' },
);
export type ReviewRequest = Static<typeof ReviewRequest>;

export const InvoiceRequest = Type.Object(
  {
    id: Id,
    settlementFiles: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'invoice / approval file URLs, comma-separated',
    }),
  },
  { title: 'InvoiceRequest' },
);
export const PayRequest = Type.Object(
  {
    id: Id,
    amount: Cents,
    voucher: Opt(Type.String({ maxLength: 1024, description: 'payment voucher (URL or reference)' })),
  },
  { title: 'PayRequest' },
);
export const VoidRequest = Type.Object(
  { id: Id, reason: Type.String({ minLength: 1, maxLength: 512 }) },
  { title: 'VoidRequest' },
);

export const SettlementCardPageRequest = Type.Object(
  {
    ...PageFields,
    settlementStatus: Opt(Type.Integer({ minimum: 1, maximum: 9 })),
    cardModelId: Opt(Id),
    cardModelName: Opt(Type.String({ maxLength: 128 })),
    settlementMerchantId: Opt(Id),
    settlementNo: Opt(Type.String({ maxLength: 48 })),
    estimationId: Opt(Id),
    settlementPeriod: Opt(DateRange),
    keywords: Opt(Keywords),
  },
  { title: 'SettlementCardPageRequest' },
);
export type SettlementPageQuery = Static<typeof SettlementCardPageRequest>;
