import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, Nullable, Opt, orEmpty, PageFields, PhoneText } from '../../platform/http/schemas.js';

const MerchantType = Type.Integer({
  minimum: 1,
  maximum: 3,
  description: '1 platform, 2 scenic-spot operator, 3 sales partner',
});
const Status = Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' });

export const MerchantResponse = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    merchantType: Type.Integer({ description: '1 platform, 2 scenic-spot operator, 3 sales partner' }),
    contactName: Nullable(Type.String()),
    contactPhone: Nullable(Type.String()),
    address: Nullable(Type.String()),
    remark: Nullable(Type.String()),
    status: Type.Integer({ description: '1 enabled, 0 disabled' }),
    shopCount: Type.Integer({ description: 'living shops of the merchant' }),
    createdTime: Nullable(Type.String()),
    updatedTime: Nullable(Type.String()),
  },
  { title: 'MerchantResponse' },
);
export type Merchant = Static<typeof MerchantResponse>;

const writable = {
  name: Type.String({ minLength: 1, maxLength: 128, description: 'company name, unique among living merchants' }),
  // Absent or null keeps the stored value on update; "" clears it.
  contactName: Opt(Type.String({ maxLength: 64 })),
  contactPhone: Opt(orEmpty(PhoneText)),
  address: Opt(Type.String({ maxLength: 255 })),
  remark: Opt(Type.String({ maxLength: 255 })),
};

export const MerchantAddRequest = Type.Object(
  { ...writable, merchantType: MerchantType },
  { title: 'MerchantAddRequest' },
);
export type MerchantAdd = Static<typeof MerchantAddRequest>;

export const MerchantUpdateRequest = Type.Object(
  { id: Id, ...writable, merchantType: Opt(MerchantType) },
  { title: 'MerchantUpdateRequest' },
);
export type MerchantUpdate = Static<typeof MerchantUpdateRequest>;

export const MerchantStatusRequest = Type.Object({ id: Id, status: Status }, { title: 'MerchantStatusRequest' });
export type MerchantStatusChange = Static<typeof MerchantStatusRequest>;

const filters = {
  name: Opt(Type.String({ maxLength: 128, description: 'found within the name' })),
  merchantType: Opt(MerchantType),
  status: Opt(Status),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};

export const MerchantListRequest = Type.Object(filters, { title: 'MerchantListRequest' });
export type MerchantFilter = Static<typeof MerchantListRequest>;

export const MerchantPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'MerchantPageRequest' });
export type MerchantPageQuery = Static<typeof MerchantPageRequest>;
