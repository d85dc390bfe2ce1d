import { randomBytes } from 'node:crypto';
import type { PermissionCatalog, PermissionEntry } from '../../platform/auth/permission-catalog.js';
import { scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { firstUngrantable, mayChangeRole } from './grants.js';
import * as repo from './role.repository.js';
import type { Role, RoleAdd, RoleFilter, RolePageQuery, RoleStatusChange, RoleUpdate } from './role.schemas.js';
import {
  grantBeyondOwn,
  merchantNotFound,
  notYourRole,
  roleCodeReserved,
  roleCodeTaken,
  roleInUse,
  roleNotFound,
  roleOutsideScope,
  roleOwnerOutsideScope,
  shopNotFound,
  unknownPermission,
} from './staff.errors.js';
import { isReservedRoleCode } from './system-roles.js';
import { findShopOwner } from './staff.repository.js';
import { keepingASuperAdmin } from './super-admins.js';
import { nonBlank, optionalText as optional } from '../../platform/text-input.js';
import { findMerchantState, assertMerchantEnabled } from '../merchant/index.js';

/** Whether the scope sees the role (role.repository's visibleRoles, for one record). */
function sees(scope: Scope, role: Role): boolean {
  if (scope.kind === 'platform' || role.merchantId === null) return true;
  if (role.merchantId !== scope.merchantId) return false;
  return scope.kind === 'merchant' || role.shopId === null || role.shopId === scope.shopId;
}

/**
 * Roles: permission lists that staff hold through user_role. Any change to what a role grants ends
 * the sessions of its holders (sessions carry their permissions), after the change has committed.
 */
export function createRoleService(deps: { db: Db; tokens: TokenService; permissions: PermissionCatalog }) {
  const { db, tokens } = deps;

  /** Every name known and grantable by the caller (only the `added` ones when given). */
  function checkPermissions(ctx: AuthedContext, names: string[]): string[] {
    const unique = [...new Set(names.map((n) => n.trim()))];
    for (const name of unique) if (!deps.permissions.isKnown(name)) throw unknownPermission(name);
    const beyond = firstUngrantable(ctx.account, unique);
    if (beyond) throw grantBeyondOwn(beyond);
    return unique;
  }

  /** The owner of a new role: global (platform only), a merchant, or a shop, within the caller's scope. */
  async function ownerOf(
    trx: Trx,
    scope: Scope,
    input: RoleAdd,
  ): Promise<{ merchantId: number | null; shopId: number | null }> {
    let merchantId = input.merchantId ?? (scope.kind === 'platform' ? null : scope.merchantId);
    const shopId = input.shopId ?? (scope.kind === 'shop' ? scope.shopId : null);
    if (shopId != null) {
      const shop = await findShopOwner(trx, shopId);
      if (!shop || (merchantId != null && shop.merchantId !== merchantId)) throw shopNotFound();
      merchantId = shop.merchantId;
    }
    if (scope.kind !== 'platform' && merchantId !== scope.merchantId) throw roleOwnerOutsideScope();
    if (scope.kind === 'shop' && shopId !== scope.shopId) throw roleOwnerOutsideScope();
    if (merchantId != null) {
      const merchant = await findMerchantState(trx, merchantId);
      if (!merchant) throw merchantNotFound();
      // As for staff and verifiers: nothing new is added under a disabled merchant.
      assertMerchantEnabled(merchant);
    }
    return { merchantId, shopId };
  }

  /** The role when it exists (404) and the caller sees it (a foreign one answers 403, as every single record does). */
  async function visible(ctx: AuthedContext, exec: Executor, id: number, forUpdate = false): Promise<Role> {
    const role = await repo.findRole(exec, id, forUpdate);
    if (!role) throw roleNotFound();
    if (!sees(scopeOf(ctx.account), role)) throw roleOutsideScope();
    return role;
  }

  async function changeable(ctx: AuthedContext, id: number, trx: Trx): Promise<Role> {
    const role = await visible(ctx, trx, id, true);
    if (!mayChangeRole(scopeOf(ctx.account), role)) throw notYourRole();
    return role;
  }

  async function revokeHolders(holders: number[]): Promise<void> {
    await tokens.revokeAccounts('admin', holders);
  }

  return {
    async add(ctx: AuthedContext, input: RoleAdd): Promise<Role> {
      const permissions = checkPermissions(ctx, input.permissions);
      const code = input.code?.trim() || `role_${randomBytes(6).toString('hex')}`;
      if (isReservedRoleCode(code)) throw roleCodeReserved(code);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const owner = await ownerOf(trx, scopeOf(ctx.account), input);
          try {
            const id = await repo.insertRole(
              trx,
              { code, name: nonBlank('name', input.name), permissions, ...owner, remark: optional(input.remark, null) },
              ctx.account.id,
            );
            return (await repo.findRole(trx, id))!;
          } catch (err) {
            if (isUniqueViolation(err, repo.ROLE_CODE_CONSTRAINT)) throw roleCodeTaken(code);
            throw err;
          }
        },
        (r) => r.id,
      );
    },

    async update(ctx: AuthedContext, input: RoleUpdate): Promise<void> {
      const holders = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await changeable(ctx, input.id, trx);
          const wanted = [...new Set(input.permissions.map((p) => p.trim()))];
          const added = wanted.filter((p) => !current.permissions.includes(p));
          checkPermissions(ctx, added);
          const changed = wanted.length !== current.permissions.length || added.length > 0;
          await keepingASuperAdmin(trx, () =>
            repo.updateRole(
              trx,
              input.id,
              {
                name: nonBlank('name', input.name),
                permissions: wanted,
                remark: optional(input.remark, current.remark),
              },
              ctx.account.id,
            ),
          );
          return changed ? repo.holdersOf(trx, input.id) : [];
        },
        () => input.id,
      );
      await revokeHolders(holders);
    },

    async setStatus(ctx: AuthedContext, input: RoleStatusChange): Promise<void> {
      const holders = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await changeable(ctx, input.id, trx);
          if (current.status === input.status) return [];
          // Enabling grants the role's permissions again: only someone holding them may do it.
          if (input.status === 1) checkPermissions(ctx, current.permissions);
          await keepingASuperAdmin(trx, () => repo.setRoleStatus(trx, input.id, input.status, ctx.account.id));
          return repo.holdersOf(trx, input.id);
        },
        () => input.id,
      );
      await revokeHolders(holders);
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await changeable(ctx, id, trx);
          if (current.userCount > 0) throw roleInUse(current.userCount);
          await repo.unlinkDeletedHolders(trx, id);
          await repo.deleteRole(trx, id);
        },
        () => id,
      );
    },

    get: (ctx: AuthedContext, id: number): Promise<Role> => visible(ctx, db, id),

    list: (ctx: AuthedContext, filter: RoleFilter): Promise<Role[]> => repo.listRoles(db, filter, scopeOf(ctx.account)),

    page: (ctx: AuthedContext, query: RolePageQuery): Promise<Page<Role>> =>
      repo.pageRoles(db, query, scopeOf(ctx.account), query),

    permissions: (): PermissionEntry[] => deps.permissions.list(),
  };
}

export type RoleService = ReturnType<typeof createRoleService>;
