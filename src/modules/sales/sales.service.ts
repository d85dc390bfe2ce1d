import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { deptDisabled, deptNotFound, inviteCodeTaken, salesNotFound } from './sales.errors.js';
import * as repo from './sales.repository.js';
import type { Sales, SalesAdd, SalesFilter, SalesPageQuery, SalesUpdate } from './sales.schemas.js';
import { optionalText as optional } from '../../platform/text-input.js';
import { assertMerchantEnabled } from '../merchant/index.js';
import { findDept } from '../dept/index.js';

/** Sales institutions (spec A 4.7): scoped to the staff user's merchant or shop through their department. */
export function createSalesService(deps: { db: Db }) {
  const { db } = deps;

  /** The insert or update, with a clash on the invite code's unique index answered as 409. */
  async function claimingInviteCode<T>(code: string | null, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (code !== null && isUniqueViolation(err, repo.INVITE_CODE_INDEX)) throw inviteCodeTaken(code);
      throw err;
    }
  }

  /**
   * The owners of the department a sales institution is put in, held FOR SHARE (a deleteDept meanwhile
   * waits and then sees the new sales institution, or has deleted it first and this finds nothing): unknown
   * → 404, another merchant's or shop's → 403. One it is added to or moves into must be enabled, under
   * an enabled merchant; staying in a department disabled since is not refused.
   */
  async function ownerOf(trx: Executor, ctx: AuthedContext, deptId: number, entering: boolean) {
    const dept = await findDept(trx, deptId, 'share');
    if (!dept) throw deptNotFound();
    assertInScope(ctx.account, dept);
    if (entering) {
      assertMerchantEnabled(dept.merchant);
      if (!dept.isEnabled) throw deptDisabled();
    }
    return { merchantId: dept.merchantId, shopId: dept.shopId };
  }

  async function visible(ctx: AuthedContext, id: number, trx?: Parameters<typeof repo.findSales>[0]) {
    const sales = await repo.findSales(trx ?? db, id, trx !== undefined);
    if (!sales) throw salesNotFound();
    assertInScope(ctx.account, sales);
    return sales;
  }

  return {
    add(ctx: AuthedContext, input: SalesAdd): Promise<Sales> {
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const owner = await ownerOf(trx, ctx, input.deptId, true);
          const v: repo.SalesValues = {
            name: input.name.trim(),
            deptId: input.deptId,
            ...owner,
            phone: optional(input.phone, null),
            inviteCode: optional(input.inviteCode, null),
            qrcode: optional(input.qrcode, null),
          };
          return claimingInviteCode(v.inviteCode, () => repo.insertSales(trx, v, ctx.account.id));
        },
        (created) => created.id,
      );
    },

    async update(ctx: AuthedContext, input: SalesUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, input.id, trx);
          const owner = await ownerOf(trx, ctx, input.deptId, input.deptId !== current.deptId);
          const v: repo.SalesValues = {
            name: input.name.trim(),
            deptId: input.deptId,
            ...owner,
            phone: optional(input.phone, current.phone),
            inviteCode: optional(input.inviteCode, current.inviteCode),
            qrcode: optional(input.qrcode, current.qrcode),
          };
          await claimingInviteCode(v.inviteCode, () => repo.updateSales(trx, input.id, v, ctx.account.id));
        },
        () => input.id,
      );
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await visible(ctx, id, trx);
          await repo.softDeleteSales(trx, id, ctx.account.id);
        },
        () => id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<Sales> {
      return repo.toWire(await visible(ctx, id));
    },

    list(ctx: AuthedContext, filter: SalesFilter): Promise<Sales[]> {
      return repo.listSales(db, filter, scopeOf(ctx.account));
    },

    page(ctx: AuthedContext, query: SalesPageQuery): Promise<Page<Sales>> {
      return repo.pageSales(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type SalesService = ReturnType<typeof createSalesService>;
