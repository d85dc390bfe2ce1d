import { Type, type Static } from 'typebox';
import { Id, Nullable, Opt } from '../../platform/http/schemas.js';

/** A card model's rule per resource: how its check-ins are settled (SettlementWay 1–5), and its dated prices. */

const Way = Type.Integer({
  minimum: 1,
  maximum: 5,
  description:
    'SettlementWay: 1 by check count, 2 buy-out, 3 revenue share, 4 unified by allocated amount, 5 monthly balanced allocation',
});
const Cents = (description: string) => Type.Integer({ minimum: 0, maximum: 100_000_000_000, description });
const Factor = Type.Number({
  minimum: 0,
  maximum: 100,
  description: 'a multiplier with at most 4 decimals (1 = the full amount)',
});
const Percent = Type.Number({ minimum: 0, maximum: 100, description: 'percent with at most 4 decimals' });
const DayText = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD', examples: ['2026-11-01'] });

export const PriceResponse = Type.Object(
  {
    id: Type.Integer(),
    ruleId: Type.Integer(),
    startDate: Type.String({ description: 'YYYY-MM-DD, inclusive' }),
    endDate: Type.String({ description: 'YYYY-MM-DD, inclusive' }),
    price: Type.Integer({ description: 'per-check price in the period, cents' }),
    settlementFactor: Type.Number(),
  },
  { title: 'PriceResponse' },
);
export type RulePrice = Static<typeof PriceResponse>;

export const RuleResponse = Type.Object(
  {
    id: Type.Integer(),
    cardModelId: Type.Integer(),
    resourceId: Type.Integer({ description: 'the resource (spu) admitted, e.g. a scenic spot' }),
    resourceName: Type.String(),
    resourceType: Type.Integer(),
    merchantId: Type.Integer({ description: "the resource's merchant" }),
    shopId: Type.Integer({ description: "the resource's shop" }),
    shopName: Nullable(Type.String()),
    settlementWay: Type.String({ description: 'SettlementWay code "1"-"5"' }),
    buyPrice: Nullable(Type.Integer({ description: 'per-check price, cents (way 1)' })),
    settlementFactor: Type.Number(),
    buyoutAmount: Nullable(Type.Integer({ description: 'cents (way 2)' })),
    sharePercent: Nullable(Type.Number({ description: 'percent (way 3)' })),
    dailyCheckLimit: Type.Integer({ description: 'checks per card per day at this resource' }),
    prices: Type.Array(PriceResponse),
    createdTime: Nullable(Type.String()),
    updatedTime: Nullable(Type.String()),
  },
  { title: 'RuleResponse' },
);
export type Rule = Static<typeof RuleResponse>;

const parameters = {
  settlementWay: Way,
  buyPrice: Opt(Cents('per-check price, cents; required for way 1')),
  settlementFactor: Opt(Factor),
  buyoutAmount: Opt(Cents('cents; required for way 2')),
  sharePercent: Opt(Percent),
  dailyCheckLimit: Opt(Type.Integer({ minimum: 1, maximum: 100, description: 'default 1' })),
};

export const RuleAddRequest = Type.Object(
  { cardModelId: Id, resourceId: Id, ...parameters },
  { title: 'RuleAddRequest' },
);
export type RuleAdd = Static<typeof RuleAddRequest>;

export const RuleUpdateRequest = Type.Object({ id: Id, ...parameters }, { title: 'RuleUpdateRequest' });
export type RuleUpdate = Static<typeof RuleUpdateRequest>;

export const PriceAddRequest = Type.Object(
  {
    ruleId: Id,
    startDate: DayText,
    endDate: DayText,
    price: Cents('per-check price, cents'),
    settlementFactor: Opt(Factor),
  },
  { title: 'PriceAddRequest' },
);
export type PriceAdd = Static<typeof PriceAddRequest>;

export const PriceUpdateRequest = Type.Object(
  {
    id: Id,
    startDate: DayText,
    endDate: DayText,
    price: Cents('per-check price, cents'),
    settlementFactor: Opt(Factor),
  },
  { title: 'PriceUpdateRequest' },
);
export type PriceUpdate = Static<typeof PriceUpdateRequest>;

export const RuleIdRequest = Type.Object({ ruleId: Id }, { title: 'RuleIdRequest' });
