import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, Nullable, Opt, orEmpty, PageFields, PhoneText } from '../../platform/http/schemas.js';

/** Spec B 2.6: a department of a merchant, or of one of its shops. */
export const DeptResponse = Type.Object(
  {
    id: Type.Integer(),
    merchantId: Nullable(Type.Integer()),
    merchantName: Nullable(Type.String()),
    shopId: Nullable(Type.Integer()),
    shopName: Nullable(Type.String()),
    name: Type.String(),
    parentId: Type.Integer({ description: '0 for a top-level department' }),
    sort: Type.Integer(),
    leaderUserId: Nullable(Type.Integer()),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
    isEnabled: Type.Boolean(),
  },
  { title: 'DeptResponse' },
);
export type Dept = Static<typeof DeptResponse>;

const Email = Type.String({
  maxLength: 64,
  pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
  description: 'an e-mail address',
  examples: ['office@example.com'],
});
const ParentId = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: '0 for a top-level department',
});
const Sort = Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'order among siblings, smallest first' });

const writable = {
  name: Type.String({ minLength: 1, maxLength: 64 }),
  parentId: ParentId,
  sort: Sort,
  // Absent or null keeps the stored value on update; "" (or leaderUserId 0) clears it.
  leaderUserId: Opt(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "a staff user of the department's merchant (0 clears it on update)",
    }),
  ),
  phone: Opt(orEmpty(PhoneText)),
  email: Opt(orEmpty(Email)),
  tenantId: Opt(Id),
};

export const DeptAddRequest = Type.Object(
  {
    merchantId: Opt(Id),
    shopId: Opt(Id),
    ...writable,
  },
  { title: 'DeptAddRequest' },
);
export type DeptAdd = Static<typeof DeptAddRequest>;

/** The owner (merchant, shop) is fixed at creation; a department moves only within its merchant. */
export const DeptUpdateRequest = Type.Object(
  {
    id: Id,
    ...writable,
    isEnabled: Opt(Type.Boolean({ description: 'false disables the department (absent keeps it)' })),
  },
  { title: 'DeptUpdateRequest' },
);
export type DeptUpdate = Static<typeof DeptUpdateRequest>;

const filters = {
  name: Opt(Type.String({ maxLength: 64, description: 'found within the name' })),
  merchantId: Opt(Id),
  shopId: Opt(Id),
  parentId: Opt(ParentId),
  isEnabled: Opt(Type.Boolean()),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};

export const DeptListRequest = Type.Object(filters, { title: 'DeptListRequest' });
export type DeptFilter = Static<typeof DeptListRequest>;

export const DeptPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'DeptPageRequest' });
export type DeptPageQuery = Static<typeof DeptPageRequest>;
