import { Type, type Static } from 'typebox';
import { CodeText, Id, IdList, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';
import { Cents, Count } from './spu.schemas.js';

// Codes are read as numbers or numeric strings ("2") and answered as strings (spec A 2.2).
const Mold = Type.Integer({
  minimum: 1,
  maximum: 3,
  description: 'GoodsMold: 1 physical, 2 virtual, 3 e-voucher (the code as a number or a string)',
});
const SkuStatus = Type.Integer({
  minimum: 1,
  maximum: 3,
  description: 'TicketsStatus: 1 on shelf, 2 editing, 3 off shelf (the code as a number or a string)',
});
const Rate = Type.Number({ minimum: 0, maximum: 1_000_000, description: 'a decimal with at most 4 decimal places' });

/** Spec A 2.3 SkuEntrance: a gate of the scenic spot where the SKU is checked. */
export const SkuEntrance = Type.Object(
  {
    id: Type.Integer(),
    skuId: Type.Integer({ description: 'owning SKU' }),
    entranceName: Type.String(),
    merchantId: Nullable(Type.Integer()),
    shopId: Nullable(Type.Integer()),
    goodsId: Nullable(Type.Integer()),
    createdBy: Nullable(Type.String()),
    createdTime: Nullable(Type.String()),
  },
  { title: 'SkuEntrance' },
);
export type SkuEntranceOut = Static<typeof SkuEntrance>;

/** An entrance as given: a new one without id, an existing one of this SKU (kept or renamed) with its id. */
export const SkuEntranceInput = Type.Object(
  {
    id: Opt(Id),
    entranceName: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { title: 'SkuEntranceInput' },
);

const fields = {
  goodsChannelId: Opt(Id),
  showPrice: Opt(Cents),
  buyPrice: Opt(Cents),
  costPrice: Opt(Cents),
  buyCount: Opt(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'quantity per purchase' })),
  stock: Opt(Count),
  isLogistic: Opt(Type.Boolean()),
  carriageId: Opt(Id),
  mold: Opt(Mold),
  isDistributes: Opt(Type.Boolean()),
  commission: Opt(Cents),
  isPreferential: Opt(Type.Boolean({ description: 'coupons allowed' })),
  isUseScore: Opt(Type.Boolean()),
  isAddScore: Opt(Type.Boolean()),
  useScoreRate: Opt(Rate),
  addScoreRate: Opt(Rate),
  skuEntranceList: Opt(Type.Array(SkuEntranceInput, { maxItems: 100 })),
  cardNum: Opt(
    Type.Integer({
      minimum: 0,
      maximum: 100_000_000,
      description: 'cards issued; tourism-card goods (resourceType 1) only',
    }),
  ),
  status: Opt(SkuStatus),
};

/** Spec B 2.6 SkuAddRequest (status is ours: TicketsStatus, on shelf unless told). */
export const SkuAddRequest = Type.Object(
  {
    goodsId: Id,
    skuName: Type.String({ minLength: 1, maxLength: 128 }),
    ...fields,
  },
  { title: 'SkuAddRequest' },
);
export type SkuAdd = Static<typeof SkuAddRequest>;

/**
 * Absent or null fields keep their values; skuEntranceList, when given, is the whole new list
 * (listed ids kept, new names added, the others removed). goodsId may name another resource of the
 * same shop.
 */
export const SkuUpdateRequest = Type.Object(
  {
    id: Id,
    goodsId: Opt(Id),
    skuName: Type.String({ minLength: 1, maxLength: 128 }),
    ...fields,
  },
  { title: 'SkuUpdateRequest' },
);
export type SkuUpdate = Static<typeof SkuUpdateRequest>;

export const SkuResponse = Type.Object(
  {
    id: Type.Integer(),
    goodsId: Type.Integer(),
    goodsChannelId: Nullable(Type.Integer()),
    skuName: Type.String(),
    showPrice: Nullable(Type.Integer()),
    buyPrice: Nullable(Type.Integer()),
    costPrice: Nullable(Type.Integer()),
    buyCount: Nullable(Type.Integer()),
    stock: Nullable(Type.Integer()),
    isLogistic: Nullable(Type.Boolean()),
    carriageId: Nullable(Type.Integer()),
    mold: CodeText('GoodsMold code "1" physical, "2" virtual, "3" e-voucher'),
    isDistributes: Nullable(Type.Boolean()),
    commission: Nullable(Type.Integer()),
    isPreferential: Nullable(Type.Boolean()),
    isUseScore: Nullable(Type.Boolean()),
    isAddScore: Nullable(Type.Boolean()),
    useScoreRate: Nullable(Type.Number()),
    addScoreRate: Nullable(Type.Number()),
    skuEntranceList: Type.Array(SkuEntrance),
    cardNum: Nullable(Type.Integer()),
    status: Type.String({ description: 'TicketsStatus code: "1" on shelf, "2" editing, "3" off shelf' }),
  },
  { title: 'SkuResponse' },
);
export type Sku = Static<typeof SkuResponse>;

const filters = {
  goodsId: Opt(Id),
  shopId: Opt(Id),
  skuName: Opt(Type.String({ maxLength: 128, description: 'found within the name' })),
  mold: Opt(Mold),
  status: Opt(SkuStatus),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};

export const SkuListRequest = Type.Object(filters, { title: 'SkuListRequest' });
export type SkuFilter = Static<typeof SkuListRequest>;

export const SkuPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'SkuPageRequest' });
export type SkuPageQuery = Static<typeof SkuPageRequest>;
