import { Type, type Static } from 'typebox';
import { Id, Keywords, MobilePhone, Nullable, Opt, orEmpty, PageFields } from '../../platform/http/schemas.js';

/** Staff accounts (admin_user) on the manage channel: user types 1 platform, 2 merchant, 3 shop. */

const UserType = Type.Integer({ minimum: 1, maximum: 3, description: '1 platform, 2 merchant, 3 shop' });
export const Status = Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' });
export const RoleIds = Type.Array(Id, { maxItems: 50, description: 'role ids; [] removes every role' });
const Username = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[A-Za-z0-9_.@-]+$',
  description: '3-32 letters, digits and _ . @ -',
});
const Password = Type.String({
  minLength: 8,
  maxLength: 64,
  pattern: '^(?=.*[A-Za-z])(?=.*[0-9])[\\x21-\\x7e]+$',
  description: '8-64 printable ASCII characters with at least one letter and one digit',
  examples: ['Change1t-now'],
});

export const RoleRef = Type.Object(
  { id: Type.Integer(), code: Type.String(), name: Type.String() },
  { title: 'RoleRef' },
);

export const UserResponse = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    nickname: Nullable(Type.String()),
    mobile: Nullable(Type.String()),
    userType: Type.Integer({ description: '1 platform, 2 merchant, 3 shop' }),
    merchantId: Nullable(Type.Integer()),
    merchantName: Nullable(Type.String()),
    shopId: Nullable(Type.Integer()),
    shopName: Nullable(Type.String()),
    deptId: Nullable(Type.Integer()),
    deptName: Nullable(Type.String()),
    status: Type.Integer({ description: '1 enabled, 0 disabled' }),
    roles: Type.Array(RoleRef),
    lastLoginTime: Nullable(Type.String()),
    lastLoginIp: Nullable(Type.String()),
    createdTime: Nullable(Type.String()),
    updatedTime: Nullable(Type.String()),
  },
  { title: 'UserResponse' },
);
export type User = Static<typeof UserResponse>;

export const UserAddResponse = Type.Object(
  {
    ...UserResponse.properties,
    password: Type.String({ description: 'the generated first password: shown this once, never stored in clear' }),
  },
  { title: 'UserAddResponse' },
);
export type UserAdded = Static<typeof UserAddResponse>;

export const PasswordResponse = Type.Object(
  { password: Type.String({ description: 'the new generated password: shown this once' }) },
  { title: 'PasswordResponse' },
);

export const UserAddRequest = Type.Object(
  {
    username: Username,
    userType: UserType,
    nickname: Opt(Type.String({ maxLength: 64 })),
    mobile: Opt(orEmpty(MobilePhone)),
    merchantId: Opt(Id),
    shopId: Opt(Id),
    deptId: Opt(Id),
    roleIds: Opt(RoleIds),
  },
  { title: 'UserAddRequest' },
);
export type UserAdd = Static<typeof UserAddRequest>;

export const UserUpdateRequest = Type.Object(
  {
    id: Id,
    // Absent or null keeps the stored value; "" clears a text field.
    nickname: Opt(Type.String({ maxLength: 64 })),
    mobile: Opt(orEmpty(MobilePhone)),
    deptId: Opt(Id),
    roleIds: Opt(RoleIds),
  },
  { title: 'UserUpdateRequest' },
);
export type UserUpdate = Static<typeof UserUpdateRequest>;

export const UserStatusRequest = Type.Object({ id: Id, status: Status }, { title: 'UserStatusRequest' });
export type UserStatusChange = Static<typeof UserStatusRequest>;

export const UserRolesRequest = Type.Object({ id: Id, roleIds: RoleIds }, { title: 'UserRolesRequest' });
export type UserRoles = Static<typeof UserRolesRequest>;

export const OwnPasswordRequest = Type.Object(
  {
    oldPassword: Type.String({ minLength: 1, maxLength: 128 }),
    newPassword: Password,
  },
  { title: 'OwnPasswordRequest' },
);
export type OwnPasswordChange = Static<typeof OwnPasswordRequest>;

export const UserPageRequest = Type.Object(
  {
    ...PageFields,
    username: Opt(Type.String({ maxLength: 32, description: 'found within the username' })),
    mobile: Opt(Type.String({ maxLength: 20 })),
    userType: Opt(UserType),
    merchantId: Opt(Id),
    shopId: Opt(Id),
    deptId: Opt(Id),
    roleId: Opt(Id),
    status: Opt(Status),
    keywords: Opt(Keywords),
  },
  { title: 'UserPageRequest' },
);
export type UserPageQuery = Static<typeof UserPageRequest>;
