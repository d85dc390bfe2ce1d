import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, MobilePhone, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** Verifiers (checker) and where each may check (checker_relation), on the manage channel. */

const Status = Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' });

export const RelationResponse = Type.Object(
  {
    id: Type.Integer(),
    skuId: Type.Integer({ description: 'the scenic spot (SKU) the verifier may check at' }),
    skuName: Type.String(),
    entranceId: Nullable(Type.Integer({ description: 'the gate; null means every gate of the SKU' })),
    entranceName: Nullable(Type.String()),
  },
  { title: 'RelationResponse' },
);
export type Relation = Static<typeof RelationResponse>;

export const CheckerResponse = Type.Object(
  {
    id: Type.Integer(),
    mobile: Type.String(),
    name: Type.String(),
    merchantId: Type.Integer(),
    merchantName: Nullable(Type.String()),
    shopId: Nullable(Type.Integer()),
    shopName: Nullable(Type.String()),
    status: Type.Integer({ description: '1 enabled, 0 disabled' }),
    sskFlag: Type.Boolean({ description: 'self-service kiosk' }),
    relations: Type.Array(RelationResponse),
    lastLoginTime: Nullable(Type.String()),
    createdTime: Nullable(Type.String()),
    updatedTime: Nullable(Type.String()),
  },
  { title: 'CheckerResponse' },
);
export type Checker = Static<typeof CheckerResponse>;

export const CheckerAddResponse = Type.Object(
  {
    ...CheckerResponse.properties,
    password: Type.String({ description: 'the generated first password: shown this once' }),
  },
  { title: 'CheckerAddResponse' },
);
export type CheckerAdded = Static<typeof CheckerAddResponse>;

export const RelationInput = Type.Object({ skuId: Id, entranceId: Opt(Id) }, { title: 'RelationInput' });
const Relations = Type.Array(RelationInput, {
  maxItems: 500,
  description:
    'where the verifier may check: a SKU of its merchant (of its shop when it has one), at one gate or at all (no entranceId)',
});

export const CheckerAddRequest = Type.Object(
  {
    mobile: MobilePhone,
    name: Type.String({ minLength: 1, maxLength: 64 }),
    merchantId: Opt(Id),
    shopId: Opt(Id),
    sskFlag: Opt(Type.Boolean({ description: 'self-service kiosk (default false)' })),
    relations: Opt(Relations),
  },
  { title: 'CheckerAddRequest' },
);
export type CheckerAdd = Static<typeof CheckerAddRequest>;

export const CheckerUpdateRequest = Type.Object(
  {
    id: Id,
    mobile: MobilePhone,
    name: Type.String({ minLength: 1, maxLength: 64 }),
    sskFlag: Opt(Type.Boolean({ description: 'absent keeps the stored value' })),
  },
  { title: 'CheckerUpdateRequest' },
);
export type CheckerUpdate = Static<typeof CheckerUpdateRequest>;

export const CheckerStatusRequest = Type.Object({ id: Id, status: Status }, { title: 'CheckerStatusRequest' });
export type CheckerStatusChange = Static<typeof CheckerStatusRequest>;

export const CheckerRelationRequest = Type.Object(
  { checkerId: Id, relations: Relations },
  { title: 'CheckerRelationRequest' },
);
export type CheckerRelationChange = Static<typeof CheckerRelationRequest>;

export const CheckerIdRequest = Type.Object({ checkerId: Id }, { title: 'CheckerIdRequest' });

export const PasswordResponse = Type.Object(
  { password: Type.String({ description: 'the new generated password: shown this once' }) },
  { title: 'PasswordResponse' },
);

const filters = {
  mobile: Opt(Type.String({ maxLength: 20 })),
  name: Opt(Type.String({ maxLength: 64, description: 'found within the name' })),
  merchantId: Opt(Id),
  shopId: Opt(Id),
  status: Opt(Status),
  sskFlag: Opt(Type.Boolean()),
  skuId: Opt(Id),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};
export const CheckerListRequest = Type.Object(filters, { title: 'CheckerListRequest' });
export type CheckerFilter = Static<typeof CheckerListRequest>;
export const CheckerPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'CheckerPageRequest' });
export type CheckerPageQuery = Static<typeof CheckerPageRequest>;
