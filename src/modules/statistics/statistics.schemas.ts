import { Type, type Static } from 'typebox';
import { DatePair, DateRange, Id, Nullable, Opt, PageFields, CodeText } from '../../platform/http/schemas.js';

/** Spec B 2.1: the statistics requests and answers (money in integer cents). */

// ---- profitAccounting/cardModel ----

export const CardModelProfitAccountingRequest = Type.Object(
  {
    ...PageFields,
    cardModelId: Opt(Id),
    activeTimeRange: Opt(DateRange),
  },
  { title: 'CardModelProfitAccountingRequest' },
);
export type ProfitRequest = Static<typeof CardModelProfitAccountingRequest>;

const ProfitResource = Type.Object({
  resourceId: Type.Integer(),
  resourceName: Type.String(),
  buyPrice: Nullable(Type.Integer({ description: 'per-check price of the rule, cents' })),
  checkNum: Type.Integer({ description: "entries (consume_num) of the cohort's cards at this resource" }),
  shopId: Nullable(Type.Integer()),
  shopName: Nullable(Type.String()),
  cityId: Nullable(Type.Integer()),
  cityName: Nullable(Type.String()),
});

const ChannelActivations = Type.Object({
  channel: CodeText('ChannelType code "1"-"8"; null for cards without a channel'),
  activeNum: Type.Integer(),
});

export const CardModelProfitAccountingResponse = Type.Object(
  {
    cardModelId: Nullable(
      Type.Integer({ description: 'null when no cardModelId was asked: the figures of every visible card model' }),
    ),
    cardModelName: Nullable(Type.String()),
    totalActiveCardNum: Type.Integer({ description: 'activated cards of the cohort' }),
    cardNoNum: Type.Integer({ description: 'card numbers issued of the model (activated or not) in scope' }),
    totalCheckNum: Type.Integer({ description: "entries of the cohort's cards" }),
    resourceList: Type.Array(ProfitResource),
    oneTimes: Type.Integer(),
    twoTimes: Type.Integer(),
    threeTimes: Type.Integer(),
    fourTimes: Type.Integer(),
    fiveTimes: Type.Integer(),
    sixTimes: Type.Integer(),
    sixPlusTimes: Type.Integer({ description: 'cards used more than six times' }),
    cardBindCardNoCount: Type.Integer({ description: 'cohort cards with a living binding' }),
    cardBindIdCount: Type.Integer({ description: 'distinct ID documents among those bindings' }),
    usedPercent: Type.Number({ description: 'cards used at least once ÷ activated cards × 100, two decimals' }),
    averageUsedTimes: Type.Number({ description: 'entries ÷ activated cards, two decimals' }),
    totalNum: Type.Integer({ description: 'activated cards (= totalActiveCardNum)' }),
    donationNum: Type.Integer({ description: 'activated donated cards' }),
    youZhengNum: Type.Integer({ description: 'activations through the bank channel (ChannelType 6)' }),
    channelList: Type.Array(ChannelActivations, { description: 'activations per channel' }),
  },
  { title: 'CardModelProfitAccountingResponse' },
);
export type ProfitResponse = Static<typeof CardModelProfitAccountingResponse>;

// ---- statCardIssue, statCardStat, exportStatCardIssue ----

export const CardIssueStatRequest = Type.Object(
  {
    merchantId: Opt(Id),
    shopId: Opt(Id),
    activeTimeRange: Opt(DatePair),
  },
  { title: 'CardIssueStatRequest' },
);
export type CardIssueStatQuery = Static<typeof CardIssueStatRequest>;

export const CardIssueStatResponse = Type.Object(
  {
    orderNo: Type.Integer({ description: 'serial of the row, from 1' }),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    activeNum: Type.Integer(),
  },
  { title: 'CardIssueStatResponse' },
);
export type CardIssueStat = Static<typeof CardIssueStatResponse>;

// ---- statCardModel (open channel) ----

export const CardActiveStatRequest = Type.Object(
  {
    ...PageFields,
    cardModelId: Opt(Id),
    donationFlag: Opt(Type.Boolean()),
    activeTimeType: Opt(Type.Integer({ minimum: 1, maximum: 2, description: '1 by day (default), 2 by month' })),
    activeTimeRange: Opt(DateRange),
    businessName: Opt(
      Type.String({ maxLength: 64, description: "found within the selling merchant's or shop's name" }),
    ),
    activeByName: Opt(Type.String({ maxLength: 64, description: "found within the activating sales account's name" })),
  },
  { title: 'CardActiveStatRequest' },
);
export type CardActiveStatQuery = Static<typeof CardActiveStatRequest>;

export const CardActiveStatResponse = Type.Object(
  {
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    businessId: Nullable(Type.Integer({ description: 'the selling shop, else the selling merchant' })),
    businessName: Nullable(Type.String()),
    isDonation: Type.Integer({ description: '1 donated, 0 sold' }),
    activeById: Nullable(Type.Integer()),
    activeByName: Nullable(Type.String()),
    dateRange: Type.String({ description: 'the period: YYYY-MM-DD by day, YYYY-MM by month' }),
    activeCount: Type.Integer(),
    noBindCount: Type.Integer(),
    bindCount: Type.Integer(),
    disableCount: Type.Integer(),
    expireCount: Type.Integer(),
    chipCount: Type.Integer(),
    electronCount: Type.Integer(),
  },
  { title: 'CardActiveStatResponse' },
);
export type CardActiveStat = Static<typeof CardActiveStatResponse>;

// ---- statCardArea ----

export const CardAreaStatRequest = Type.Object(
  {
    cardModelId: Opt(Id),
    provinceCode: Opt(
      Type.String({
        pattern: '^\\d{2}(\\d{4})?$',
        maxLength: 6,
        description: "GB/T 2260 province code (2 or 6 digits): the city distribution keeps that province's cities",
        examples: ['33'],
      }),
    ),
  },
  { title: 'CardAreaStatRequest' },
);
export type CardAreaQuery = Static<typeof CardAreaStatRequest>;

const PortraitItem = Type.Object({
  label: Type.String(),
  count: Type.Integer(),
  rate: Type.Number({ description: "share of the distribution's holders, percent, two decimals" }),
  code: Type.String(),
  type: Type.Integer({ description: '1 gender, 2 age band, 3 city' }),
});
export type PortraitItem = Static<typeof PortraitItem>;

export const HomeMemberPortraitStatResponse = Type.Object(
  {
    genderDistribution: Type.Array(PortraitItem),
    ageDistribution: Type.Array(PortraitItem),
    cityDistributions: Type.Array(PortraitItem),
  },
  { title: 'HomeMemberPortraitStatResponse' },
);
export type Portrait = Static<typeof HomeMemberPortraitStatResponse>;

// ---- statHomeCardCheckNum, statHomeCardSalesAmount ----

export const DatePairRequest = Type.Object(
  {
    datePair: Opt(DatePair),
  },
  { title: 'DatePairRequest' },
);
export type DatePairQuery = Static<typeof DatePairRequest>;

export const HomeCardCheckNumStatResponse = Type.Object(
  {
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    checkNum: Type.Integer({ description: 'entries (consume_num) in the date pair' }),
  },
  { title: 'HomeCardCheckNumStatResponse' },
);
export type HomeCheckNum = Static<typeof HomeCardCheckNumStatResponse>;

export const HomeCardSalesAmountStatResponse = Type.Object(
  {
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    salesNum: Type.Integer({ description: 'cards activated in the date pair, donated ones included' }),
    donationNum: Type.Integer({ description: 'of which donated (no sale)' }),
    salesAmount: Type.Integer({ description: "cents: the model's price at each sold card's activation" }),
  },
  { title: 'HomeCardSalesAmountStatResponse' },
);
export type HomeSalesAmount = Static<typeof HomeCardSalesAmountStatResponse>;
