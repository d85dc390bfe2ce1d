import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import {
  merchantNameTaken,
  merchantNotFound,
  onlyPlatformChangesStatus,
  onlyPlatformCreatesMerchants,
  onlyPlatformRenames,
} from './merchant.errors.js';
import * as repo from './merchant.repository.js';
import type {
  Merchant,
  MerchantAdd,
  MerchantFilter,
  MerchantPageQuery,
  MerchantStatusChange,
  MerchantUpdate,
} from './merchant.schemas.js';
import { nonBlank, optionalText as optional } from '../../platform/text-input.js';

/**
 * Merchants: only platform users add them or change their status; a merchant user sees and edits the
 * contact details of its own merchant. Disabling a merchant ends the sessions of its staff and
 * verifiers at once (their logins then answer "account disabled" until it is enabled again).
 */
export function createMerchantService(deps: { db: Db; tokens: TokenService }) {
  const { db, tokens } = deps;
  const isPlatform = (ctx: AuthedContext) => scopeOf(ctx.account).kind === 'platform';

  async function claimingName<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, repo.MERCHANT_NAME_INDEX)) throw merchantNameTaken(name);
      throw err;
    }
  }

  async function visible(ctx: AuthedContext, id: number, trx?: Trx): Promise<Merchant> {
    const merchant = await repo.findMerchant(trx ?? db, id, trx !== undefined);
    if (!merchant) throw merchantNotFound();
    assertInScope(ctx.account, { merchantId: merchant.id });
    return merchant;
  }

  return {
    async add(ctx: AuthedContext, input: MerchantAdd): Promise<Merchant> {
      if (!isPlatform(ctx)) throw onlyPlatformCreatesMerchants();
      const name = nonBlank('name', input.name);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const id = await claimingName(name, () =>
            repo.insertMerchant(
              trx,
              {
                name,
                merchantType: input.merchantType,
                contactName: optional(input.contactName, null),
                contactPhone: optional(input.contactPhone, null),
                address: optional(input.address, null),
                remark: optional(input.remark, null),
              },
              ctx.account.id,
            ),
          );
          return (await repo.findMerchant(trx, id))!;
        },
        (m) => m.id,
      );
    },

    async update(ctx: AuthedContext, input: MerchantUpdate): Promise<void> {
      const name = nonBlank('name', input.name);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, input.id, trx);
          const merchantType = input.merchantType ?? current.merchantType;
          if (!isPlatform(ctx) && (name !== current.name || merchantType !== current.merchantType))
            throw onlyPlatformRenames();
          await claimingName(name, () =>
            repo.updateMerchant(
              trx,
              input.id,
              {
                name,
                merchantType,
                contactName: optional(input.contactName, current.contactName),
                contactPhone: optional(input.contactPhone, current.contactPhone),
                address: optional(input.address, current.address),
                remark: optional(input.remark, current.remark),
              },
              ctx.account.id,
            ),
          );
        },
        () => input.id,
      );
    },

    async setStatus(ctx: AuthedContext, input: MerchantStatusChange): Promise<void> {
      if (!isPlatform(ctx)) throw onlyPlatformChangesStatus();
      const accounts = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, input.id, trx);
          if (current.status !== input.status)
            await repo.setMerchantStatus(trx, input.id, input.status, ctx.account.id);
          return input.status === 0 ? repo.accountsOfMerchant(trx, input.id) : null;
        },
        () => input.id,
      );
      // After the commit, so no session can be rebuilt from the merchant as it was.
      if (accounts) {
        // Each kind is revoked whatever happened to the others; the first failure is answered after.
        const revoked = await Promise.allSettled([
          tokens.revokeAccounts('admin', accounts.staff),
          tokens.revokeAccounts('checker', accounts.checkers),
          tokens.revokeAccounts('bank', accounts.bankUsers),
        ]);
        const failed = revoked.find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
      }
    },

    get: (ctx: AuthedContext, id: number): Promise<Merchant> => visible(ctx, id),

    list(ctx: AuthedContext, filter: MerchantFilter): Promise<Merchant[]> {
      return repo.listMerchants(db, filter, scopeOf(ctx.account));
    },

    page(ctx: AuthedContext, query: MerchantPageQuery): Promise<Page<Merchant>> {
      return repo.pageMerchants(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
