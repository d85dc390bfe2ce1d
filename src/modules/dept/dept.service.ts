import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { assertUnreferenced } from '../../platform/db/references.js';
import { advisoryLock, loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import * as err from './dept.errors.js';
import * as repo from './dept.repository.js';
import type { Dept, DeptAdd, DeptFilter, DeptPageQuery, DeptUpdate } from './dept.schemas.js';
import { optionalText as optional } from '../../platform/text-input.js';
import { isSelfOrAncestor, type TreeTable } from '../../platform/db/tree-ancestry.js';
import { resolveRecordOwner, assertMerchantEnabled } from '../merchant/index.js';

const DEPT_TREE: TreeTable = { table: 'dept' };

type Owner = { merchantId: number | null; shopId: number | null };

/** A department may sit under one of its merchant's departments that has no shop or the same shop. */
function fitsUnder(child: Owner, parent: Owner): boolean {
  return child.merchantId === parent.merchantId && (parent.shopId === null || parent.shopId === child.shopId);
}

/**
 * Departments (spec B 2.6, 4.6 addDept; the rest is ours): a tree per merchant, a shop's departments
 * hanging under the merchant's or their own. Moves are serialised per merchant and checked with a
 * walk up the tree of any depth, so no loop can form.
 */
export function createDeptService(deps: { db: Db }) {
  const { db } = deps;

  async function visible(ctx: AuthedContext, trx: Executor, id: number, lock?: 'update') {
    const dept = await repo.findDept(trx, id, lock);
    if (!dept) throw err.deptNotFound();
    assertInScope(ctx.account, dept);
    return dept;
  }

  /** The parent, read first (spec B 4.6): it must exist, be visible, be enabled and be able to hold the child. */
  async function parentFor(ctx: AuthedContext, trx: Executor, parentId: number) {
    const parent = await repo.findDept(trx, parentId, 'share');
    if (!parent) throw err.parentNotFound();
    assertInScope(ctx.account, parent);
    if (!parent.isEnabled) throw err.parentDisabled();
    return parent;
  }

  async function checkLeader(trx: Executor, leaderUserId: number | null, owner: Owner): Promise<void> {
    if (leaderUserId !== null && !(await repo.staffOfMerchant(trx, leaderUserId, owner.merchantId)))
      throw err.leaderNotFound();
  }

  async function named<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (isUniqueViolation(e, repo.SIBLING_NAME_INDEX)) throw err.siblingNameTaken(name);
      throw e;
    }
  }

  async function view(trx: Executor, id: number): Promise<Dept> {
    const dept = await repo.getDeptView(trx, id);
    if (!dept) throw err.deptNotFound();
    return dept;
  }

  return {
    add(ctx: AuthedContext, input: DeptAdd): Promise<Dept> {
      const scope = scopeOf(ctx.account);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          let owner: Owner;
          if (input.parentId > 0) {
            const parent = await parentFor(ctx, trx, input.parentId);
            assertMerchantEnabled(parent.merchant);
            if (input.merchantId != null && input.merchantId !== parent.merchantId)
              throw err.ownerDiffersFromParent('merchantId');
            if (parent.shopId !== null && input.shopId != null && input.shopId !== parent.shopId)
              throw err.ownerDiffersFromParent('shopId');
            owner = { merchantId: parent.merchantId, shopId: parent.shopId ?? input.shopId ?? null };
            if (owner.shopId !== parent.shopId) {
              // A shop's department under its merchant's: the shop must be that merchant's, and the caller's.
              const shop = await repo.findShopOwner(trx, owner.shopId!);
              if (!shop) throw err.shopNotFound();
              if (shop.merchantId !== parent.merchantId) throw err.shopOfOtherMerchant();
              assertInScope(ctx.account, shop);
            }
          } else {
            owner = await resolveRecordOwner(trx, scope, input, err.ownerRequired);
          }
          const leaderUserId = input.leaderUserId || null;
          await checkLeader(trx, leaderUserId, owner);
          const name = input.name.trim();
          const id = await named(name, () =>
            repo.insertDept(
              trx,
              {
                ...owner,
                name,
                parentId: input.parentId,
                sort: input.sort,
                leaderUserId,
                phone: optional(input.phone, null),
                email: optional(input.email, null),
                tenantId: input.tenantId ?? null,
                isEnabled: true,
              },
              ctx.account.id,
            ),
          );
          return view(trx, id);
        },
        (d) => d.id,
      );
    },

    async update(ctx: AuthedContext, input: DeptUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx: Trx) => {
          const current = await visible(ctx, trx, input.id, 'update');
          if (input.parentId !== current.parentId) {
            // Moves within one merchant's tree run one at a time, so two crossing moves cannot both pass the check.
            await advisoryLock(trx, 'dept-tree', current.merchantId ?? 0);
            if (input.parentId > 0) {
              const parent = await parentFor(ctx, trx, input.parentId);
              if (!fitsUnder(current, parent)) throw err.parentOfAnotherOwner();
              if (await isSelfOrAncestor(trx, DEPT_TREE, current.id, parent.id)) throw err.wouldLoop();
            }
          }
          const leaderUserId =
            input.leaderUserId === undefined || input.leaderUserId === null
              ? current.leaderUserId
              : input.leaderUserId || null;
          if (leaderUserId !== current.leaderUserId) await checkLeader(trx, leaderUserId, current);
          const name = input.name.trim();
          await named(name, () =>
            repo.updateDept(
              trx,
              current.id,
              {
                merchantId: current.merchantId,
                shopId: current.shopId,
                name,
                parentId: input.parentId,
                sort: input.sort,
                leaderUserId,
                phone: optional(input.phone, current.phone),
                email: optional(input.email, current.email),
                tenantId: input.tenantId ?? current.tenantId,
                isEnabled: input.isEnabled ?? current.isEnabled,
              },
              ctx.account.id,
            ),
          );
        },
        () => input.id,
      );
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await visible(ctx, trx, id, 'update');
          await assertUnreferenced(trx, 'the department', id, repo.DEPT_REFERENCES);
          await repo.softDeleteDept(trx, id, ctx.account.id);
        },
        () => id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<Dept> {
      const dept = await view(db, id);
      assertInScope(ctx.account, dept);
      return dept;
    },

    list(ctx: AuthedContext, filter: DeptFilter): Promise<Dept[]> {
      return repo.listDepts(db, filter, scopeOf(ctx.account));
    },

    page(ctx: AuthedContext, query: DeptPageQuery): Promise<Page<Dept>> {
      return repo.pageDepts(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type DeptService = ReturnType<typeof createDeptService>;
