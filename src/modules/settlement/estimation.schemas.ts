import { Type, type Static } from 'typebox';
import { DateRange, Id, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** Spec A 2.6. Money in cents. */

const Period = { ...DateRange, description: 'start and end (YYYY-MM-DD HH:mm:ss; a bare end date covers that day)' };

export const EstimationCardAddRequest = Type.Object(
  {
    cardModelId: Id,
    profit: Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'per-card profit, cents' }),
    issueNum: Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'cards issued in the period' }),
    estimationPeriod: Type.Array(DateRange.items, Period),
  },
  { title: 'EstimationCardAddRequest' },
);
export type EstimationAdd = Static<typeof EstimationCardAddRequest>;

export const EstimationCardInfoResponse = Type.Object(
  {
    id: Type.Integer({ description: 'the estimation id (submitEstimationCard takes it)' }),
    estimationNo: Nullable(Type.String({ description: 'set once submitted' })),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    estimationPeriod: Type.String(),
    totalAmount: Type.Integer({ description: 'Σ settlementAmountActual of the details, cents' }),
    profit: Type.Integer(),
    issueNum: Type.Integer(),
    checkNum: Type.Integer({ description: 'cumulative check count' }),
    sceneryNum: Type.Integer(),
    submitted: Type.Boolean(),
  },
  { title: 'EstimationCardInfoResponse' },
);
export type EstimationInfo = Static<typeof EstimationCardInfoResponse>;

export const EstimationCardIssueNumGetRequest = Type.Object(
  { cardModelId: Id, estimationPeriod: Type.Array(DateRange.items, Period) },
  { title: 'EstimationCardIssueNumGetRequest' },
);

export const EstimationCardCalcDetailQueryRequest = Type.Object(
  {
    ...PageFields,
    cardModelId: Id,
    estimationPeriod: Type.Array(DateRange.items, Period),
  },
  { title: 'EstimationCardCalcDetailQueryRequest' },
);
export type CalcDetailQuery = Static<typeof EstimationCardCalcDetailQueryRequest>;

export const EstimationCardCheckCalcDetailQueryRequest = Type.Object(
  {
    ...PageFields,
    cardModelId: Id,
    estimationPeriod: Type.Array(DateRange.items, Period),
    id: {
      ...Id,
      description: 'a detail id of the cached estimation (as queryEstimationCardCalcDetailPage answers it)',
    },
  },
  { title: 'EstimationCardCheckCalcDetailQueryRequest' },
);
export type CheckCalcDetailQuery = Static<typeof EstimationCardCheckCalcDetailQueryRequest>;

export const EstimationCardCheckDetailPageRequest = Type.Object(
  {
    ...PageFields,
    estimationDetailId: {
      ...Id,
      description:
        'a detail id as queryEstimationCardCalcDetailPage answers it (of a submitted sheet or a held calculation)',
    },
    keywords: Opt(Keywords),
  },
  { title: 'EstimationCardCheckDetailPageRequest' },
);
export type CheckDetailQuery = Static<typeof EstimationCardCheckDetailPageRequest>;

export const EstimationCardPageRequest = Type.Object(
  {
    ...PageFields,
    estimationNo: Opt(Type.String({ maxLength: 40 })),
    cardModelName: Opt(Type.String({ maxLength: 128, description: 'found within the name' })),
    createdTimeRange: Opt(DateRange),
    keywords: Opt(Keywords),
  },
  { title: 'EstimationCardPageRequest' },
);
export type EstimationPageQuery = Static<typeof EstimationCardPageRequest>;

export const EstimationCardPageResponse = Type.Object(
  {
    id: Type.Integer(),
    estimationNo: Type.String(),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    startTime: Type.String(),
    endTime: Type.String(),
    sceneryNum: Type.Integer(),
    totalAmount: Type.Integer(),
    issueNum: Type.Integer(),
    profit: Type.Integer(),
    checkNum: Type.Integer(),
    createdTime: Nullable(Type.String()),
  },
  { title: 'EstimationCardPageResponse' },
);
export type EstimationPageItem = Static<typeof EstimationCardPageResponse>;

export const SubmitEstimationRequest = Type.Object({ id: Id }, { title: 'SubmitEstimationRequest' });
export const SubmitEstimationResponse = Type.Object(
  {
    id: Type.Integer(),
    estimationNo: Type.String(),
    settlementIds: Type.Array(Type.Integer(), { description: 'one order per settlement merchant, status 1' }),
  },
  { title: 'SubmitEstimationResponse' },
);
export type SubmitEstimationResponse = Static<typeof SubmitEstimationResponse>;
