import { assertInScope, scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { badRequest } from '../../platform/errors.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import type { Account, AuthedContext, RequestContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { batchRefused, checkRows } from './batch-rows.js';
import * as err from './custom.errors.js';
import * as repo from './custom.repository.js';
import type {
  BatchAdd,
  BatchAdded,
  CustomDis,
  CustomDisAdd,
  CustomDisFilter,
  CustomDisPageQuery,
  CustomDisUpdate,
  CustomDisUser,
  CustomDisUserAdd,
  CustomDisUserFilter,
  CustomDisUserPageQuery,
  CustomDisUserUpdate,
  RowError,
} from './custom.schemas.js';
import { findMerchantState, assertMerchantEnabled } from '../merchant/index.js';

const ENABLED = 1;

/** Absent or null keeps what is stored; "" clears it. */
function text(given: string | null | undefined, stored: string | null): string | null {
  if (given === undefined || given === null) return stored;
  return given.trim() === '' ? null : given.trim();
}

/** A name given on a patch must still be a name (blank is refused; an unnamed record is named by giving one). */
function patchedName(given: string | null | undefined, stored: string | null): string | null {
  if (given === undefined || given === null) return stored;
  const name = given.trim();
  if (name === '') throw badRequest('name is invalid: must not be blank');
  return name;
}

/** Who is recorded as creator: the staff user; a signed app is named in the operation log instead. */
const actor = (account: Account) => (account.kind === 'admin' ? account.id : null);

/** What the caller adds belongs to its merchant and shop (platform staff: the platform's own, merchant null). */
function ownersOf(scope: Scope): { merchantId: number | null; shopId: number | null } {
  return {
    merchantId: scope.kind === 'platform' ? null : scope.merchantId,
    shopId: scope.kind === 'shop' ? scope.shopId : null,
  };
}

/** A signed open app acts for the whole platform; staff within their merchant or shop. */
function inScope(account: Account, record: { merchantId: number | null; shopId: number | null }): void {
  if (account.kind !== 'openApp') assertInScope(account, record);
}

/**
 * Custom distributors and their users (spec A 4.6). A distributor belongs to the merchant (and shop)
 * of the staff user who added it; its users carry the same owners, and a user added without one
 * belongs to the caller's merchant (and shop) until it is attached. Nothing of the spec's `{name}` is
 * required (docs/adr/0022-the-spec-smallest-requests-get-documented-defaults.md). batchAdd adds up to 500 users in
 * one transaction, or none when any row is invalid.
 */
export function createCustomService(deps: { db: Db }) {
  const { db } = deps;

  async function visibleDis(account: Account, trx: Executor, id: number, forUpdate = false) {
    const dis = await repo.findDis(trx, id, forUpdate);
    if (!dis) throw err.disNotFound();
    inScope(account, dis);
    return dis;
  }

  /**
   * The distributor that users are added to or moved to: visible, of an enabled merchant (nothing new
   * under a disabled one), enabled itself, locked for the mobile checks.
   */
  async function openDis(account: Account, trx: Executor, id: number) {
    const found = await repo.findDisForUsers(trx, id);
    if (!found) throw err.disOfUserNotFound();
    inScope(account, found.dis);
    assertMerchantEnabled(found.merchant);
    if (found.dis.status !== ENABLED) throw err.disDisabled();
    return found.dis;
  }

  async function uniqueName<T>(name: string | null, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (name !== null && isUniqueViolation(e, repo.DIS_NAME_INDEX)) throw err.disNameTaken(name);
      throw e;
    }
  }

  async function uniqueMobile<T>(mobile: string | null, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (mobile !== null && isUniqueViolation(e, repo.USER_MOBILE_INDEX)) throw err.mobileTaken(mobile);
      throw e;
    }
  }

  /** Refuses a mobile the distributor already has (409); a user without a mobile or a distributor clashes with none. */
  async function assertMobileFree(trx: Executor, customDisId: number | null, mobile: string | null): Promise<void> {
    if (customDisId === null || mobile === null) return;
    if ((await repo.takenMobiles(trx, customDisId, [mobile])).size > 0) throw err.mobileTaken(mobile);
  }

  /** The caller's own merchant must be enabled for something new to be added under it (1_022_000_001). */
  async function assertOwnMerchantEnabled(trx: Executor, merchantId: number | null): Promise<void> {
    // Disabling a merchant ends its staff's sessions; this covers a request already past that check.
    assertMerchantEnabled(merchantId === null ? null : await findMerchantState(trx, merchantId));
  }

  return {
    addDis(ctx: AuthedContext, input: CustomDisAdd): Promise<CustomDis> {
      const owners = ownersOf(scopeOf(ctx.account));
      const name = text(input.name, null);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await assertOwnMerchantEnabled(trx, owners.merchantId);
          return uniqueName(name, () =>
            repo.insertDis(
              trx,
              {
                ...owners,
                name,
                contact: text(input.contact, null),
                phone: text(input.phone, null),
                remark: text(input.remark, null),
                status: input.status ?? ENABLED,
              },
              actor(ctx.account),
            ),
          );
        },
        (d) => d.id,
      );
    },

    async updateDis(ctx: AuthedContext, input: CustomDisUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visibleDis(ctx.account, trx, input.id, true);
          const name = patchedName(input.name, current.name);
          await uniqueName(name, () =>
            repo.updateDis(
              trx,
              current.id,
              {
                merchantId: current.merchantId,
                shopId: current.shopId,
                name,
                contact: text(input.contact, current.contact),
                phone: text(input.phone, current.phone),
                remark: text(input.remark, current.remark),
                status: input.status ?? current.status,
              },
              actor(ctx.account),
            ),
          );
        },
        () => input.id,
      );
    },

    listDis(ctx: AuthedContext, f: CustomDisFilter): Promise<CustomDis[]> {
      return repo.listDis(db, f, scopeOf(ctx.account));
    },

    pageDis(ctx: AuthedContext, q: CustomDisPageQuery): Promise<Page<CustomDis>> {
      return repo.pageDis(db, q, scopeOf(ctx.account), q);
    },

    addUser(ctx: AuthedContext, input: CustomDisUserAdd): Promise<CustomDisUser> {
      const mobile = text(input.mobile, null);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          let owners: Pick<repo.UserValues, 'customDisId' | 'merchantId' | 'shopId'>;
          if (input.customDisId != null) {
            const dis = await openDis(ctx.account, trx, input.customDisId);
            owners = { customDisId: dis.id, merchantId: dis.merchantId, shopId: dis.shopId };
          } else {
            owners = { customDisId: null, ...ownersOf(scopeOf(ctx.account)) };
            await assertOwnMerchantEnabled(trx, owners.merchantId);
          }
          await assertMobileFree(trx, owners.customDisId, mobile);
          const [user] = await uniqueMobile(mobile, () =>
            repo.insertUsers(
              trx,
              [
                {
                  ...owners,
                  name: text(input.name, null),
                  mobile,
                  remark: text(input.remark, null),
                  status: input.status ?? ENABLED,
                },
              ],
              actor(ctx.account),
            ),
          );
          return user;
        },
        (u) => u.id,
      );
    },

    async updateUser(ctx: AuthedContext, input: CustomDisUserUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await repo.findUser(trx, input.id, true);
          if (!current) throw err.userNotFound();
          inScope(ctx.account, current);
          const target =
            input.customDisId != null && input.customDisId !== current.customDisId
              ? await openDis(ctx.account, trx, input.customDisId)
              : null;
          const mobile = text(input.mobile, current.mobile);
          const disId = target?.id ?? current.customDisId;
          if (target || mobile !== current.mobile) await assertMobileFree(trx, disId, mobile);
          // A user moved (or first attached) takes its distributor's owners, the platform's own included.
          await uniqueMobile(mobile, () =>
            repo.updateUser(
              trx,
              current.id,
              {
                customDisId: disId,
                merchantId: target ? target.merchantId : current.merchantId,
                shopId: target ? target.shopId : current.shopId,
                name: patchedName(input.name, current.name),
                mobile,
                remark: text(input.remark, current.remark),
                status: input.status ?? current.status,
              },
              actor(ctx.account),
            ),
          );
        },
        () => input.id,
      );
    },

    listUsers(ctx: AuthedContext, f: CustomDisUserFilter): Promise<CustomDisUser[]> {
      return repo.listUsers(db, f, scopeOf(ctx.account));
    },

    pageUsers(ctx: AuthedContext, q: CustomDisUserPageQuery): Promise<Page<CustomDisUser>> {
      return repo.pageUsers(db, q, scopeOf(ctx.account), q);
    },

    /**
     * All the rows or none: every row is checked first (fields, repeats within the batch), then,
     * under the distributor's lock, against its existing users; any problem refuses the whole batch
     * with every failing row and field named.
     */
    async batchAdd(ctx: RequestContext, input: BatchAdd): Promise<BatchAdded> {
      const account = ctx.account!;
      const { rows, errors } = checkRows(input.users);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const dis = await openDis(account, trx, input.customDisId);
          const taken = await repo.takenMobiles(
            trx,
            dis.id,
            rows.map((r) => r.mobile),
          );
          const clashes: RowError[] = rows
            .filter((r) => taken.has(r.mobile))
            .map((r) => ({
              row: r.row,
              field: 'mobile',
              message: `mobile is invalid: ${r.mobile} is already a user of this distributor`,
            }));
          const all = [...errors, ...clashes].sort((a, b) => a.row - b.row);
          if (all.length > 0) throw batchRefused(all);
          try {
            const list = await repo.insertUsers(
              trx,
              rows.map((r) => ({
                customDisId: dis.id,
                merchantId: dis.merchantId,
                shopId: dis.shopId,
                name: r.name,
                mobile: r.mobile,
                remark: r.remark,
                status: r.status,
              })),
              actor(account),
            );
            return { customDisId: dis.id, count: list.length, list };
          } catch (e) {
            if (isUniqueViolation(e, repo.USER_MOBILE_INDEX)) throw err.batchRaced();
            throw e;
          }
        },
        () => input.customDisId,
      );
    },
  };
}

export type CustomService = ReturnType<typeof createCustomService>;
