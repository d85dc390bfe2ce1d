import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, Nullable, Opt, orEmpty, PageFields, PhoneText } from '../../platform/http/schemas.js';

/** Spec A 2.8: a sales institution, attached to a department of a merchant or shop. */
export const SalesResponse = Type.Object(
  {
    id: Type.Integer({ description: 'sales institution id' }),
    name: Type.String(),
    deptId: Type.Integer({ description: 'department id' }),
    phone: Nullable(Type.String()),
    inviteCode: Nullable(Type.String()),
    qrcode: Nullable(Type.String({ description: 'distribution QR code (URL or content)' })),
  },
  { title: 'SalesResponse' },
);
export type Sales = Static<typeof SalesResponse>;

const InviteCode = Type.String({
  maxLength: 32,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'letters, digits, _ and -; unique among living sales institutions',
});
const Qrcode = Type.String({ maxLength: 1024 });

const writable = {
  name: Type.String({ minLength: 1, maxLength: 64 }),
  deptId: Id,
  // Optional fields: absent or null keeps the stored value on update; "" clears it.
  phone: Opt(orEmpty(PhoneText)),
  inviteCode: Opt(orEmpty(InviteCode)),
  qrcode: Opt(Qrcode),
};

export const SalesAddRequest = Type.Object(writable, { title: 'SalesAddRequest' });
export type SalesAdd = Static<typeof SalesAddRequest>;

export const SalesUpdateRequest = Type.Object({ id: Id, ...writable }, { title: 'SalesUpdateRequest' });
export type SalesUpdate = Static<typeof SalesUpdateRequest>;

const filters = {
  name: Opt(Type.String({ maxLength: 64, description: 'found within the name' })),
  deptId: Opt(Id),
  phone: Opt(Type.String({ maxLength: 20 })),
  inviteCode: Opt(Type.String({ maxLength: 32 })),
  qrcode: Opt(Qrcode),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};

export const SalesListRequest = Type.Object(filters, { title: 'SalesListRequest' });
export type SalesFilter = Static<typeof SalesListRequest>;

export const SalesPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'SalesPageRequest' });
export type SalesPageQuery = Static<typeof SalesPageRequest>;
