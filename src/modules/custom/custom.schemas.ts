import { Type, type Static } from 'typebox';
import {
  Id,
  IdList,
  Keywords,
  MobilePhone,
  Nullable,
  Opt,
  orEmpty,
  PageFields,
  PhoneText,
} from '../../platform/http/schemas.js';

export const Status = Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' });
export const NAME_MAX = 64;
export const REMARK_MAX = 255;
export const BATCH_MAX = 500;

const Name = Type.String({ minLength: 1, maxLength: NAME_MAX });
/** On add a blank name is no name yet (a record may be named later); an update refuses a blank one. */
const AddName = Type.String({ maxLength: NAME_MAX });
const Remark = Type.String({ maxLength: REMARK_MAX, description: '"" clears it on update' });

/** A custom distributor (spec A 2.8 gives only {name}/{id}; docs/domain.md §1 gives the record). */
export const CustomDisResponse = Type.Object(
  {
    id: Type.Integer(),
    merchantId: Nullable(Type.Integer({ description: "the merchant that keeps it; null for the platform's own" })),
    shopId: Nullable(Type.Integer()),
    name: Nullable(Type.String({ description: 'null until one is given' })),
    contact: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    remark: Nullable(Type.String()),
    status: Type.Integer(),
    createdTime: Type.String(),
    updatedTime: Type.String(),
  },
  { title: 'CustomDisResponse' },
);
export type CustomDis = Static<typeof CustomDisResponse>;

/** Nothing is required (spec A 2.8 `{name}`): a distributor may be named later. */
export const CustomDisAddRequest = Type.Object(
  {
    name: Opt(AddName),
    contact: Opt(Type.String({ maxLength: 64 })),
    phone: Opt(orEmpty(PhoneText)),
    remark: Opt(Remark),
    status: Opt(Status),
  },
  { title: 'CustomDisAddRequest' },
);
export type CustomDisAdd = Static<typeof CustomDisAddRequest>;

/** Only the fields given change; "" clears an optional text; status 0 disables the distributor. */
export const CustomDisUpdateRequest = Type.Object(
  {
    id: Id,
    name: Opt(Name),
    contact: Opt(Type.String({ maxLength: 64 })),
    phone: Opt(orEmpty(PhoneText)),
    remark: Opt(Remark),
    status: Opt(Status),
  },
  { title: 'CustomDisUpdateRequest' },
);
export type CustomDisUpdate = Static<typeof CustomDisUpdateRequest>;

const disFilters = {
  keywords: Opt(Type.String({ ...Keywords, description: 'found in name, contact and phone' })),
  status: Opt(Status),
  idList: Opt(IdList),
};
export const CustomDisListRequest = Type.Object(disFilters, { title: 'CustomDisListRequest' });
export type CustomDisFilter = Static<typeof CustomDisListRequest>;
export const CustomDisPageRequest = Type.Object({ ...PageFields, ...disFilters }, { title: 'CustomDisPageRequest' });
export type CustomDisPageQuery = Static<typeof CustomDisPageRequest>;

/** A user of a custom distributor. */
export const CustomDisUserResponse = Type.Object(
  {
    id: Type.Integer(),
    customDisId: Nullable(Type.Integer({ description: 'null until the user is attached to a distributor' })),
    customDisName: Nullable(Type.String()),
    merchantId: Nullable(Type.Integer()),
    shopId: Nullable(Type.Integer()),
    name: Nullable(Type.String()),
    mobile: Nullable(Type.String()),
    remark: Nullable(Type.String()),
    status: Type.Integer(),
    createdTime: Type.String(),
    updatedTime: Type.String(),
  },
  { title: 'CustomDisUserResponse' },
);
export type CustomDisUser = Static<typeof CustomDisUserResponse>;

/**
 * Nothing is required (spec A 2.8 `{name}`): without customDisId the user belongs to the caller's
 * merchant (or shop) and is attached to a distributor later (updateCustomDisUser); mobile may follow.
 */
export const CustomDisUserAddRequest = Type.Object(
  {
    customDisId: Opt(Id),
    name: Opt(AddName),
    mobile: Opt(orEmpty(MobilePhone)),
    remark: Opt(Remark),
    status: Opt(Status),
  },
  { title: 'CustomDisUserAddRequest' },
);
export type CustomDisUserAdd = Static<typeof CustomDisUserAddRequest>;

/** Only the fields given change; customDisId moves the user to another distributor of the caller. */
export const CustomDisUserUpdateRequest = Type.Object(
  {
    id: Id,
    customDisId: Opt(Id),
    name: Opt(Name),
    mobile: Opt(orEmpty(MobilePhone)),
    remark: Opt(Remark),
    status: Opt(Status),
  },
  { title: 'CustomDisUserUpdateRequest' },
);
export type CustomDisUserUpdate = Static<typeof CustomDisUserUpdateRequest>;

const userFilters = {
  customDisId: Opt(Id),
  keywords: Opt(Type.String({ ...Keywords, description: 'found in name and mobile' })),
  status: Opt(Status),
  idList: Opt(IdList),
};
export const CustomDisUserListRequest = Type.Object(userFilters, { title: 'CustomDisUserListRequest' });
export type CustomDisUserFilter = Static<typeof CustomDisUserListRequest>;
export const CustomDisUserPageRequest = Type.Object(
  { ...PageFields, ...userFilters },
  { title: 'CustomDisUserPageRequest' },
);
export type CustomDisUserPageQuery = Static<typeof CustomDisUserPageRequest>;

/**
 * `/open-api/custom/batchAdd`: up to 500 users of one distributor. The rows are checked one by one by
 * the service (not by the schema), so a refusal names every failing row and field at once.
 */
export const BatchAddRequest = Type.Object(
  {
    customDisId: Id,
    users: Type.Array(Type.Unknown({ description: '{name*, mobile*, remark, status}' }), {
      minItems: 1,
      maxItems: BATCH_MAX,
    }),
  },
  { title: 'BatchAddRequest' },
);
export type BatchAdd = Static<typeof BatchAddRequest>;

export const BatchAddResponse = Type.Object(
  {
    customDisId: Type.Integer(),
    count: Type.Integer({ description: 'users created' }),
    list: Type.Array(CustomDisUserResponse),
  },
  { title: 'BatchAddResponse' },
);
export type BatchAdded = Static<typeof BatchAddResponse>;

/** One refused row of a batch (1-based), in the envelope's data.errors. */
export const BatchRowError = Type.Object(
  {
    row: Type.Integer({ description: 'the row, from 1' }),
    field: Type.String({ description: 'the field of the row that is invalid' }),
    message: Type.String(),
  },
  { title: 'BatchRowError' },
);
export type RowError = Static<typeof BatchRowError>;

/** What a refused batch carries as the envelope's `data`: every failing row and field. */
export const BatchAddRefusal = Type.Object({ errors: Type.Array(BatchRowError) }, { title: 'BatchAddRefusal' });
