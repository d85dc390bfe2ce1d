import { generatePassword } from '../../platform/auth/generated-password.js';
import { hashPassword, verifyPassword } from '../../platform/auth/password.js';
import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import { badRequest } from '../../platform/errors.js';
import { UserType, type AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { firstUngrantable, roleFitsUser } from './grants.js';
import * as roleRepo from './role.repository.js';
import {
  deptNotFound,
  grantBeyondOwn,
  merchantNotFound,
  notOnSelf,
  placeOutsideScope,
  roleForOtherPlace,
  roleNotFound,
  samePassword,
  shopNotFound,
  usernameTaken,
  wrongOldPassword,
} from './staff.errors.js';
import { deletableUser, manageableUser, visibleUser } from './manageable.js';
import * as repo from './staff.repository.js';
import type {
  OwnPasswordChange,
  User,
  UserAdd,
  UserAdded,
  UserPageQuery,
  UserRoles,
  UserStatusChange,
  UserUpdate,
} from './staff.schemas.js';
import { keepingASuperAdmin } from './super-admins.js';
import { optionalText as optional } from '../../platform/text-input.js';
import { findMerchantState, assertMerchantEnabled } from '../merchant/index.js';

interface Placement {
  userType: number;
  merchantId: number | null;
  shopId: number | null;
}

/**
 * Where a new user goes, from its type and the caller's scope: platform users place anyone; a merchant
 * user adds merchant and shop users of its own merchant; a shop user adds users of its own shop.
 */
function placementFor(scope: Scope, input: UserAdd): Placement {
  const { userType } = input;
  if (userType === UserType.PLATFORM) {
    if (scope.kind !== 'platform') throw placeOutsideScope();
    if (input.merchantId != null || input.shopId != null)
      throw badRequest('merchantId is invalid: a platform user belongs to no merchant or shop');
    return { userType, merchantId: null, shopId: null };
  }
  if (userType === UserType.MERCHANT) {
    if (scope.kind === 'shop') throw placeOutsideScope();
    if (input.shopId != null)
      throw badRequest('shopId is invalid: a merchant user belongs to no shop (add a shop user instead)');
    const merchantId = input.merchantId ?? (scope.kind === 'merchant' ? scope.merchantId : null);
    if (merchantId == null) throw badRequest('merchantId is required for a merchant user');
    if (scope.kind === 'merchant' && merchantId !== scope.merchantId) throw placeOutsideScope();
    return { userType, merchantId, shopId: null };
  }
  const shopId = input.shopId ?? (scope.kind === 'shop' ? scope.shopId : null);
  if (shopId == null) throw badRequest('shopId is required for a shop user');
  if (scope.kind === 'shop' && shopId !== scope.shopId) throw placeOutsideScope();
  return { userType, merchantId: input.merchantId ?? null, shopId };
}

/** Staff users (admin_user) on the manage channel. */
export function createStaffService(deps: { db: Db; tokens: TokenService }) {
  const { db, tokens } = deps;

  async function claimingUsername<T>(username: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, repo.USERNAME_INDEX)) throw usernameTaken(username);
      throw err;
    }
  }

  /** Checks the merchant and shop of a placement exist (and fills the shop's merchant). */
  async function confirmPlacement(trx: Trx, scope: Scope, p: Placement): Promise<Placement> {
    let merchantId = p.merchantId;
    if (p.shopId != null) {
      const shop = await repo.findShopOwner(trx, p.shopId);
      if (!shop || (merchantId != null && shop.merchantId !== merchantId)) throw shopNotFound();
      if (scope.kind !== 'platform' && shop.merchantId !== scope.merchantId) throw placeOutsideScope();
      merchantId = shop.merchantId;
    }
    if (merchantId != null) {
      const merchant = await findMerchantState(trx, merchantId);
      if (!merchant) throw merchantNotFound();
      assertMerchantEnabled(merchant);
    }
    return { ...p, merchantId };
  }

  /** A department of the user's own merchant (merchant users) or shop (shop users); any for platform users. */
  async function confirmDept(trx: Trx, deptId: number, p: Placement): Promise<void> {
    const dept = await repo.findDeptOwner(trx, deptId);
    if (!dept) throw deptNotFound();
    if (p.userType === UserType.MERCHANT && dept.merchantId !== p.merchantId) throw deptNotFound();
    if (p.userType === UserType.SHOP && dept.shopId !== p.shopId) throw deptNotFound();
  }

  /**
   * The roles to give: each visible to the caller and fit for the user's merchant and shop; the ones
   * the user does not hold yet must carry only permissions the caller holds itself.
   */
  async function confirmRoles(
    trx: Trx,
    ctx: AuthedContext,
    roleIds: number[],
    user: Placement,
    held: number[] = [],
  ): Promise<number[]> {
    const ids = [...new Set(roleIds)];
    const roles = await roleRepo.findVisibleRoles(trx, ids, scopeOf(ctx.account));
    for (const id of ids) {
      const role = roles.find((r) => r.id === id);
      if (!role) throw roleNotFound(id);
      if (!roleFitsUser(role, user)) throw roleForOtherPlace(role.name);
      if (held.includes(id)) continue;
      const beyond = firstUngrantable(ctx.account, role.permissions);
      if (beyond) throw grantBeyondOwn(`role "${role.name}" (${beyond})`);
    }
    return ids;
  }

  async function revoke(userId: number): Promise<void> {
    await tokens.revokeAccount('admin', userId);
  }

  return {
    async add(ctx: AuthedContext, input: UserAdd): Promise<UserAdded> {
      const scope = scopeOf(ctx.account);
      const wanted = placementFor(scope, input);
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      const username = input.username.trim();
      const user = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const placement = await confirmPlacement(trx, scope, wanted);
          if (input.deptId != null) await confirmDept(trx, input.deptId, placement);
          const roleIds = await confirmRoles(trx, ctx, input.roleIds ?? [], placement);
          const id = await claimingUsername(username, () =>
            repo.insertUser(
              trx,
              {
                username,
                passwordHash,
                nickname: optional(input.nickname, null),
                mobile: optional(input.mobile, null),
                ...placement,
                deptId: input.deptId ?? null,
              },
              ctx.account.id,
            ),
          );
          await repo.replaceUserRoles(trx, id, roleIds);
          return (await repo.findUser(trx, id))!;
        },
        (u) => u.id,
      );
      return { ...user, password };
    },

    async update(ctx: AuthedContext, input: UserUpdate): Promise<void> {
      const rolesChanged = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await manageableUser(ctx, trx, input.id);
          const deptId = input.deptId ?? current.deptId;
          if (input.deptId != null && input.deptId !== current.deptId) await confirmDept(trx, input.deptId, current);
          await repo.updateUser(
            trx,
            input.id,
            {
              nickname: optional(input.nickname, current.nickname),
              mobile: optional(input.mobile, current.mobile),
              deptId,
            },
            ctx.account.id,
          );
          if (input.roleIds == null) return false;
          return setRoles(trx, ctx, current, input.roleIds);
        },
        () => input.id,
      );
      if (rolesChanged) await revoke(input.id);
    },

    async assignRoles(ctx: AuthedContext, input: UserRoles): Promise<void> {
      const changed = await loggedTransaction(
        db,
        ctx,
        async (trx) => setRoles(trx, ctx, await manageableUser(ctx, trx, input.id), input.roleIds),
        () => input.id,
      );
      if (changed) await revoke(input.id);
    },

    async setStatus(ctx: AuthedContext, input: UserStatusChange): Promise<void> {
      if (input.id === ctx.account.id && input.status === 0) throw notOnSelf('disable');
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await manageableUser(ctx, trx, input.id);
          if (current.status === input.status) return;
          await keepingASuperAdmin(trx, () => repo.setUserStatus(trx, input.id, input.status, ctx.account.id));
        },
        () => input.id,
      );
      if (input.status === 0) await revoke(input.id);
    },

    async resetPassword(ctx: AuthedContext, id: number): Promise<{ password: string }> {
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await manageableUser(ctx, trx, id);
          await repo.setPasswordHash(trx, id, passwordHash, ctx.account.id);
        },
        () => id,
      );
      await revoke(id);
      return { password };
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await deletableUser(ctx, trx, id);
          await keepingASuperAdmin(trx, () => repo.softDeleteUser(trx, id, ctx.account.id));
        },
        () => id,
      );
      await revoke(id);
    },

    /** The caller's own password; every session of the account ends (log in again with the new one). */
    async changeOwnPassword(ctx: AuthedContext, input: OwnPasswordChange): Promise<void> {
      const stored = await repo.passwordHashOf(db, ctx.account.id);
      if (!stored || !(await verifyPassword(stored, input.oldPassword)).ok) throw wrongOldPassword();
      if (input.oldPassword === input.newPassword) throw samePassword();
      const passwordHash = await hashPassword(input.newPassword);
      await loggedTransaction(
        db,
        ctx,
        (trx) => repo.setPasswordHash(trx, ctx.account.id, passwordHash, ctx.account.id),
        () => ctx.account.id,
      );
      await revoke(ctx.account.id);
    },

    get: (ctx: AuthedContext, id: number): Promise<User> => visibleUser(ctx, db, id),

    page(ctx: AuthedContext, query: UserPageQuery): Promise<Page<User>> {
      return repo.pageUsers(db, query, scopeOf(ctx.account), query);
    },
  };

  /** Replaces a user's roles within the transaction; answers whether they changed. */
  async function setRoles(trx: Trx, ctx: AuthedContext, user: User, roleIds: number[]): Promise<boolean> {
    const held = user.roles.map((r) => r.id);
    const ids = await confirmRoles(trx, ctx, roleIds, user, held);
    return keepingASuperAdmin(trx, () => repo.replaceUserRoles(trx, user.id, ids));
  }
}

export type StaffService = ReturnType<typeof createStaffService>;
