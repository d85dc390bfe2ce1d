import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { RoleService } from './role.service.js';
import {
  PermissionResponse, RoleAddRequest, RoleListRequest, RolePageRequest, RoleResponse, RoleStatusRequest, RoleUpdateRequest,
} from './role.schemas.js';
import type { StaffService } from './staff.service.js';
import {
  OwnPasswordRequest, PasswordResponse, UserAddRequest, UserAddResponse, UserPageRequest, UserResponse, UserRolesRequest, UserStatusRequest,
  UserUpdateRequest,
} from './staff.schemas.js';

const staff = { kinds: ['admin' as const] };
const USERS = '用户管理';
const ROLES = '角色管理';

/** Staff users, roles and the permission list on the manage channel (issue 15; the spec shows none). */
export function staffRoutes(svc: { users: StaffService; roles: RoleService }): RouteSpec[] {
  const { users, roles } = svc;
  const userTags = ['staff'];
  const roleTags = ['role'];
  return [
    defineRoute({
      method: 'POST', path: '/system/user/addUser', channels: ['manage'], auth: staff, permission: 'staff:write',
      operation: [USERS, '新增用户'],
      summary: 'Add a staff user with a generated first password, answered this once (platform users add anyone; merchant users their merchant\'s and its shops\' users; shop users their shop\'s)',
      tags: userTags, body: UserAddRequest, response: UserAddResponse,
      handler: (ctx, { body }) => users.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/user/updateUser', channels: ['manage'], auth: staff, permission: 'staff:write',
      operation: [USERS, '修改用户'],
      summary: 'Update a staff user\'s nickname, mobile, department or roles (absent fields are kept); new roles end its sessions',
      tags: userTags, body: UserUpdateRequest, response: null,
      handler: (ctx, { body }) => users.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/user/assignUserRoles', channels: ['manage'], auth: staff, permission: 'staff:write',
      operation: [USERS, '分配角色'], summary: 'Replace a staff user\'s roles; its sessions end at once', tags: userTags,
      body: UserRolesRequest, response: null,
      handler: (ctx, { body }) => users.assignRoles(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/user/updateUserStatus', channels: ['manage'], auth: staff, permission: 'staff:write',
      operation: [USERS, '启用/停用用户'], summary: 'Enable (1) or disable (0) a staff user; disabling ends its sessions at once', tags: userTags,
      body: UserStatusRequest, response: null,
      handler: (ctx, { body }) => users.setStatus(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/user/resetUserPassword', channels: ['manage'], auth: staff, permission: 'staff:write',
      operation: [USERS, '重置密码'], summary: 'Give a staff user a new generated password (answered this once); its sessions end at once', tags: userTags,
      body: IdRequest, response: PasswordResponse,
      handler: (ctx, { body }) => users.resetPassword(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/system/user/deleteUser', channels: ['manage'], auth: staff, permission: 'staff:write',
      operation: [USERS, '删除用户'], summary: 'Delete a staff user (logical delete; its username becomes free); its sessions end at once', tags: userTags,
      body: IdRequest, response: null,
      handler: (ctx, { body }) => users.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/system/user/updatePassword', channels: ['manage'], auth: staff, permission: false,
      operation: [USERS, '修改本人密码'], summary: 'Change your own password; every session of your account ends (log in again)', tags: userTags,
      body: OwnPasswordRequest, response: null,
      handler: (ctx, { body }) => users.changeOwnPassword(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/user/getUser', channels: ['manage'], auth: staff, permission: 'staff:read',
      summary: 'One staff user with its roles', tags: userTags, body: IdRequest, response: UserResponse,
      handler: (ctx, { body }) => users.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/system/user/queryUserPage', channels: ['manage'], auth: staff, permission: 'staff:read',
      summary: 'A page of staff users matching the filters (keywords in username, nickname and mobile), newest first', tags: userTags,
      body: UserPageRequest, response: PageInfo(UserResponse),
      handler: (ctx, { body }) => users.page(authed(ctx), body),
    }),

    defineRoute({
      method: 'POST', path: '/system/role/addRole', channels: ['manage'], auth: staff, permission: 'role:write',
      operation: [ROLES, '新增角色'],
      summary: 'Add a role: global (platform users, no merchantId) or of a merchant or shop; only permissions you hold yourself', tags: roleTags,
      body: RoleAddRequest, response: RoleResponse,
      handler: (ctx, { body }) => roles.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/role/updateRole', channels: ['manage'], auth: staff, permission: 'role:write',
      operation: [ROLES, '修改角色'], summary: 'Rename a role or replace its permissions; a change of permissions ends its holders\' sessions', tags: roleTags,
      body: RoleUpdateRequest, response: null,
      handler: (ctx, { body }) => roles.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/role/updateRoleStatus', channels: ['manage'], auth: staff, permission: 'role:write',
      operation: [ROLES, '启用/停用角色'], summary: 'Enable (1) or disable (0) a role; its holders\' sessions end', tags: roleTags,
      body: RoleStatusRequest, response: null,
      handler: (ctx, { body }) => roles.setStatus(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/role/deleteRole', channels: ['manage'], auth: staff, permission: 'role:write',
      operation: [ROLES, '删除角色'], summary: 'Delete a role no living user holds', tags: roleTags,
      body: IdRequest, response: null,
      handler: (ctx, { body }) => roles.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/system/role/getRole', channels: ['manage'], auth: staff, permission: 'role:read',
      summary: 'One role', tags: roleTags, body: IdRequest, response: RoleResponse,
      handler: (ctx, { body }) => roles.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/system/role/queryRoleList', channels: ['manage'], auth: staff, permission: 'role:read',
      summary: 'Roles you may see and assign (global ones and your merchant\'s or shop\'s), newest first', tags: roleTags,
      body: RoleListRequest, response: Type.Array(RoleResponse),
      handler: (ctx, { body }) => roles.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/role/queryRolePage', channels: ['manage'], auth: staff, permission: 'role:read',
      summary: 'A page of roles matching the filters, newest first', tags: roleTags,
      body: RolePageRequest, response: PageInfo(RoleResponse),
      handler: (ctx, { body }) => roles.page(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/system/permission/queryPermissionList', channels: ['manage'], auth: staff, permission: 'role:read',
      summary: 'Every permission the operations of this service require, with those operations (what a role may hold)', tags: roleTags,
      response: Type.Array(PermissionResponse),
      handler: async () => roles.permissions(),
    }),
  ];
}
