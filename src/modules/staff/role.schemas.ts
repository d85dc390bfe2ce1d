import { Type, type Static } from 'typebox';
import { Id, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';
import { Status } from './staff.schemas.js';

/** Roles: named permission lists, global (platform) or owned by a merchant or shop. */

const Permissions = Type.Array(
  Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^(\\*|[A-Za-z][A-Za-z0-9_-]*:(\\*|[A-Za-z][A-Za-z0-9_:-]*))$',
    description: 'a permission name, `<module>:*` or `*`',
    examples: ['sales:read'],
  }),
  {
    maxItems: 500,
    description: 'permission names from queryPermissionList, `<module>:*` for a whole module, `*` for everything',
  },
);
const RoleCode = Type.String({
  minLength: 2,
  maxLength: 64,
  pattern: '^[A-Za-z][A-Za-z0-9_:-]*$',
  description: 'a letter, then letters, digits, _ : -',
});

export const RoleResponse = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String(),
    name: Type.String(),
    permissions: Type.Array(Type.String()),
    status: Type.Integer({ description: '1 enabled, 0 disabled (its permissions are not granted)' }),
    merchantId: Nullable(Type.Integer({ description: 'owner; null for a global role made by the platform' })),
    merchantName: Nullable(Type.String()),
    shopId: Nullable(Type.Integer()),
    shopName: Nullable(Type.String()),
    remark: Nullable(Type.String()),
    userCount: Type.Integer({ description: 'living users holding the role' }),
    createdTime: Nullable(Type.String()),
    updatedTime: Nullable(Type.String()),
  },
  { title: 'RoleResponse' },
);
export type Role = Static<typeof RoleResponse>;

export const RoleAddRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    code: Opt(RoleCode),
    permissions: Permissions,
    merchantId: Opt(Id),
    shopId: Opt(Id),
    remark: Opt(Type.String({ maxLength: 255 })),
  },
  { title: 'RoleAddRequest' },
);
export type RoleAdd = Static<typeof RoleAddRequest>;

export const RoleUpdateRequest = Type.Object(
  {
    id: Id,
    name: Type.String({ minLength: 1, maxLength: 64 }),
    permissions: Permissions,
    remark: Opt(Type.String({ maxLength: 255 })),
  },
  { title: 'RoleUpdateRequest' },
);
export type RoleUpdate = Static<typeof RoleUpdateRequest>;

export const RoleStatusRequest = Type.Object({ id: Id, status: Status }, { title: 'RoleStatusRequest' });
export type RoleStatusChange = Static<typeof RoleStatusRequest>;

const filters = {
  name: Opt(Type.String({ maxLength: 64, description: 'found within the name' })),
  code: Opt(Type.String({ maxLength: 64 })),
  merchantId: Opt(Id),
  status: Opt(Status),
  keywords: Opt(Keywords),
};
export const RoleListRequest = Type.Object(filters, { title: 'RoleListRequest' });
export type RoleFilter = Static<typeof RoleListRequest>;
export const RolePageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'RolePageRequest' });
export type RolePageQuery = Static<typeof RolePageRequest>;

export const PermissionResponse = Type.Object(
  {
    permission: Type.String(),
    operations: Type.Array(Type.String(), { description: 'the operations that require it' }),
  },
  { title: 'PermissionResponse' },
);
