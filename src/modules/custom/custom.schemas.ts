import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, MobilePhone, Nullable, Opt, orEmpty, PageFields, PhoneText } from '../../platform/http/schemas.js';

export const Status = Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' });
export const NAME_MAX = 64;
export const REMARK_MAX = 255;
export const BATCH_MAX = 500;

const Name = Type.String({ minLength: 1, maxLength: NAME_MAX });
const Remark = Type.String({ maxLength: REMARK_MAX, description: '"" clears it on update' });

/** A custom distributor (spec A 2.8 gives only {name}/{id}; DOMAIN and issue 13 give the record). */
export const CustomDisResponse = Type.Object({
  id: Type.Integer(),
  merchantId: Nullable(Type.Integer({ description: 'the merchant that keeps it; null for the platform\'s own' })),
  shopId: Nullable(Type.Integer()),
  name: Type.String(),
  contact: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  remark: Nullable(Type.String()),
  status: Type.Integer(),
  createdTime: Type.String(),
  updatedTime: Type.String(),
});
export type CustomDis = Static<typeof CustomDisResponse>;

export const CustomDisAddRequest = Type.Object({
  name: Name,
  contact: Opt(Type.String({ maxLength: 64 })),
  phone: Opt(orEmpty(PhoneText)),
  remark: Opt(Remark),
  status: Opt(Status),
});
export type CustomDisAdd = Static<typeof CustomDisAddRequest>;

/** Only the fields given change; "" clears an optional text; status 0 disables the distributor. */
export const CustomDisUpdateRequest = Type.Object({
  id: Id,
  name: Opt(Name),
  contact: Opt(Type.String({ maxLength: 64 })),
  phone: Opt(orEmpty(PhoneText)),
  remark: Opt(Remark),
  status: Opt(Status),
});
export type CustomDisUpdate = Static<typeof CustomDisUpdateRequest>;

const disFilters = {
  keywords: Opt(Type.String({ ...Keywords, description: 'found in name, contact and phone' })),
  status: Opt(Status),
  idList: Opt(IdList),
};
export const CustomDisListRequest = Type.Object(disFilters);
export type CustomDisFilter = Static<typeof CustomDisListRequest>;
export const CustomDisPageRequest = Type.Object({ ...PageFields, ...disFilters });
export type CustomDisPageQuery = Static<typeof CustomDisPageRequest>;

/** A user of a custom distributor. */
export const CustomDisUserResponse = Type.Object({
  id: Type.Integer(),
  customDisId: Type.Integer(),
  customDisName: Nullable(Type.String()),
  merchantId: Nullable(Type.Integer()),
  shopId: Nullable(Type.Integer()),
  name: Type.String(),
  mobile: Type.String(),
  remark: Nullable(Type.String()),
  status: Type.Integer(),
  createdTime: Type.String(),
  updatedTime: Type.String(),
});
export type CustomDisUser = Static<typeof CustomDisUserResponse>;

export const CustomDisUserAddRequest = Type.Object({
  customDisId: Id,
  name: Name,
  mobile: MobilePhone,
  remark: Opt(Remark),
  status: Opt(Status),
});
export type CustomDisUserAdd = Static<typeof CustomDisUserAddRequest>;

/** Only the fields given change; customDisId moves the user to another distributor of the caller. */
export const CustomDisUserUpdateRequest = Type.Object({
  id: Id,
  customDisId: Opt(Id),
  name: Opt(Name),
  mobile: Opt(MobilePhone),
  remark: Opt(Remark),
  status: Opt(Status),
});
export type CustomDisUserUpdate = Static<typeof CustomDisUserUpdateRequest>;

const userFilters = {
  customDisId: Opt(Id),
  keywords: Opt(Type.String({ ...Keywords, description: 'found in name and mobile' })),
  status: Opt(Status),
  idList: Opt(IdList),
};
export const CustomDisUserListRequest = Type.Object(userFilters);
export type CustomDisUserFilter = Static<typeof CustomDisUserListRequest>;
export const CustomDisUserPageRequest = Type.Object({ ...PageFields, ...userFilters });
export type CustomDisUserPageQuery = Static<typeof CustomDisUserPageRequest>;

/**
 * `/open-api/custom/batchAdd`: up to 500 users of one distributor. The rows are checked one by one by
 * the service (not by the schema), so a refusal names every failing row and field at once.
 */
export const BatchAddRequest = Type.Object({
  customDisId: Id,
  users: Type.Array(Type.Unknown({ description: '{name*, mobile*, remark, status}' }), { minItems: 1, maxItems: BATCH_MAX }),
});
export type BatchAdd = Static<typeof BatchAddRequest>;

export const BatchAddResponse = Type.Object({
  customDisId: Type.Integer(),
  count: Type.Integer({ description: 'users created' }),
  list: Type.Array(CustomDisUserResponse),
});
export type BatchAdded = Static<typeof BatchAddResponse>;

/** One refused row of a batch (1-based), in the envelope's data.errors. */
export interface RowError {
  row: number;
  field: string;
  message: string;
}
