import { Type, type Static } from 'typebox';
import { Id, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** Spec A 2.5: the calculation request of executeCalc and previewCalc. */
const Month = Type.Integer({ minimum: 1, maximum: 12 });
export const MAX_FIXED_AMOUNT = 100_000_000;

export const DistributeAmountCalcRequest = Type.Object(
  {
    year: Type.Integer({ minimum: 2020, maximum: 2099, description: 'the year of the months to allocate' }),
    month: Opt(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        description:
          'the month to allocate; with neither month nor months: every month of the year begun so far in the service time zone (a past year all twelve, the current year January to the current month, a future year none)',
      }),
    ),
    months: Opt(
      Type.Array(Month, {
        maxItems: 12,
        description: 'several months in one call; takes priority over month (empty: as if absent)',
      }),
    ),
    cardModelIds: Opt(
      Type.Array(Id, {
        maxItems: 100,
        description: 'card models to allocate; empty or absent: every allocation-enabled model',
      }),
    ),
    ratio: Opt(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        default: 80,
        description: 'ratio mode: percent of the amortised card price allocated (default 80)',
      }),
    ),
    calcMode: Opt(
      Type.Union([Type.Literal('ratio'), Type.Literal('fixed')], { description: 'ratio (default) or fixed' }),
    ),
    fixedAmount: Opt(
      Type.Integer({
        minimum: 0,
        maximum: MAX_FIXED_AMOUNT,
        description: 'fixed mode (required there): cents per valid user per month',
      }),
    ),
  },
  { title: 'DistributeAmountCalcRequest' },
);
export type CalcRequest = Static<typeof DistributeAmountCalcRequest>;

const dateTime = (description: string) => Nullable(Type.String({ description: `${description}, YYYY-MM-DD HH:mm:ss` }));

/** Spec A 2.5: DistributeBatch. Money in cents. */
export const DistributeBatch = Type.Object(
  {
    id: Type.Integer(),
    batchNo: Type.String(),
    year: Type.Integer(),
    month: Type.Integer(),
    quarter: Type.Integer(),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    cardModelPrice: Type.Integer({ description: 'cents' }),
    validUserCount: Type.Integer({ description: 'cards of the model valid during the month' }),
    totalDistributeAmount: Type.Integer({ description: 'allocatable total of the month, cents' }),
    parkCount: Type.Integer({ description: 'scenic spots taking part (settlement way 5)' }),
    status: Type.Integer({ description: '1 calculated, 2 confirmed, 3 exported' }),
    execTime: dateTime('when the calculation ran'),
    execBy: Nullable(Type.Integer({ description: 'staff account that ran it' })),
    ratio: Nullable(Type.Integer({ description: 'percent (ratio mode)' })),
    calcMode: Type.String({ description: 'ratio or fixed' }),
    fixedAmount: Nullable(Type.Integer({ description: 'cents per valid user (fixed mode)' })),
    isDeleted: Type.Boolean(),
    createdBy: Nullable(Type.Integer()),
    createdTime: dateTime('created'),
    updatedBy: Nullable(Type.Integer()),
    updatedTime: dateTime('last updated'),
  },
  { title: 'DistributeBatch' },
);
export type DistributeBatch = Static<typeof DistributeBatch>;

/** The detail of one park in a batch (spec A 4.3 "not shown"; fields as the issue designs them). */
export const DistributeDetail = Type.Object(
  {
    id: Type.Integer(),
    batchId: Type.Integer(),
    year: Type.Integer(),
    month: Type.Integer(),
    cardModelId: Type.Integer(),
    parkId: Type.Integer({ description: 'the scenic spot (spu) id' }),
    parkName: Type.String(),
    checkNum: Type.Integer({ description: "sum of consume_num of the model's checks there in the month" }),
    distributePercent: Type.Number({ description: "percent of the scope's checks, four decimals" }),
    distributeAmount: Type.Integer({ description: 'cents' }),
  },
  { title: 'DistributeDetail' },
);
export type DistributeDetail = Static<typeof DistributeDetail>;

/** One element of previewCalc's list: one (month, card model), nothing saved. */
export const PreviewDetail = Type.Object(
  {
    parkId: Type.Integer(),
    parkName: Type.String(),
    checkNum: Type.Integer(),
    distributePercent: Type.Number(),
    distributeAmount: Type.Integer({ description: 'cents' }),
  },
  { title: 'PreviewDetail' },
);
export const PreviewItem = Type.Object(
  {
    year: Type.Integer(),
    month: Type.Integer(),
    quarter: Type.Integer(),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    cardModelPrice: Type.Integer(),
    validUserCount: Type.Integer(),
    totalDistributeAmount: Type.Integer(),
    parkCount: Type.Integer(),
    ratio: Nullable(Type.Integer()),
    calcMode: Type.String(),
    fixedAmount: Nullable(Type.Integer()),
    details: Type.Array(PreviewDetail),
  },
  { title: 'PreviewItem' },
);
export type PreviewItem = Static<typeof PreviewItem>;

export const DistributeBatchPageRequest = Type.Object(
  {
    ...PageFields,
    year: Opt(Type.Integer({ minimum: 2020, maximum: 2099 })),
    month: Opt(Month),
    quarter: Opt(Type.Integer({ minimum: 1, maximum: 4 })),
    cardModelName: Opt(Type.String({ maxLength: 128, description: 'found within the card model name' })),
  },
  { title: 'DistributeBatchPageRequest' },
);
export type BatchPageQuery = Static<typeof DistributeBatchPageRequest>;

export const DistributeDetailPageRequest = Type.Object(
  {
    ...PageFields,
    batchId: Id,
    keywords: Opt(Keywords),
  },
  { title: 'DistributeDetailPageRequest' },
);
export type DetailPageQuery = Static<typeof DistributeDetailPageRequest>;

export const ExportDistributeDetailRequest = Type.Object({ batchId: Id }, { title: 'ExportDistributeDetailRequest' });
