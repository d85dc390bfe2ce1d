import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** Card models (kinds of tourism card): price in cents, validity in months, their price history. */

export const Status = Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' });
const Price = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'cents' });
const ValidityMonths = Type.Integer({
  minimum: 1,
  maximum: 120,
  description: 'months a card stays valid after activation (default 12)',
});

export const CardModelResponse = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    price: Type.Integer({ description: 'current price, cents' }),
    validityMonths: Type.Integer(),
    allocationEnabled: Type.Boolean({ description: 'takes part in the monthly allocation' }),
    status: Type.Integer({ description: '1 enabled, 0 disabled' }),
    skuId: Nullable(Type.Integer({ description: 'the tourism-card SKU that sells it' })),
    skuName: Nullable(Type.String()),
    merchantId: Nullable(Type.Integer({ description: 'the issuing merchant; null for a platform card' })),
    merchantName: Nullable(Type.String()),
    remark: Nullable(Type.String()),
    ruleCount: Type.Integer({ description: 'resources it admits' }),
    cardCount: Type.Integer({ description: 'cards generated' }),
    createdTime: Nullable(Type.String()),
    updatedTime: Nullable(Type.String()),
  },
  { title: 'CardModelResponse' },
);
export type CardModel = Static<typeof CardModelResponse>;

export const CardModelAddRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128 }),
    price: Price,
    validityMonths: Opt(ValidityMonths),
    allocationEnabled: Opt(Type.Boolean({ description: 'default false' })),
    skuId: Opt(Id),
    merchantId: Opt(Id),
    remark: Opt(Type.String({ maxLength: 255 })),
  },
  { title: 'CardModelAddRequest' },
);
export type CardModelAdd = Static<typeof CardModelAddRequest>;

export const CardModelUpdateRequest = Type.Object(
  {
    id: Id,
    name: Type.String({ minLength: 1, maxLength: 128 }),
    price: Price,
    // Absent or null keeps the stored value.
    validityMonths: Opt(ValidityMonths),
    allocationEnabled: Opt(Type.Boolean()),
    skuId: Opt(Id),
    remark: Opt(Type.String({ maxLength: 255 })),
  },
  { title: 'CardModelUpdateRequest' },
);
export type CardModelUpdate = Static<typeof CardModelUpdateRequest>;

export const CardModelStatusRequest = Type.Object({ id: Id, status: Status }, { title: 'CardModelStatusRequest' });
export type CardModelStatusChange = Static<typeof CardModelStatusRequest>;

export const CardModelAllocationRequest = Type.Object(
  { id: Id, allocationEnabled: Type.Boolean() },
  { title: 'CardModelAllocationRequest' },
);
export type CardModelAllocationChange = Static<typeof CardModelAllocationRequest>;

export const PriceHistoryResponse = Type.Object(
  {
    id: Type.Integer(),
    price: Type.Integer({ description: 'cents' }),
    validityMonths: Type.Integer(),
    validFrom: Type.String(),
    validTo: Nullable(Type.String({ description: 'null for the current price' })),
    createdBy: Nullable(Type.Integer()),
  },
  { title: 'PriceHistoryResponse' },
);
export type PriceHistory = Static<typeof PriceHistoryResponse>;

export const CardModelIdRequest = Type.Object({ cardModelId: Id }, { title: 'CardModelIdRequest' });

const filters = {
  name: Opt(Type.String({ maxLength: 128, description: 'found within the name' })),
  status: Opt(Status),
  allocationEnabled: Opt(Type.Boolean()),
  merchantId: Opt(Id),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};
export const CardModelListRequest = Type.Object(filters, { title: 'CardModelListRequest' });
export type CardModelFilter = Static<typeof CardModelListRequest>;
export const CardModelPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'CardModelPageRequest' });
export type CardModelPageQuery = Static<typeof CardModelPageRequest>;
