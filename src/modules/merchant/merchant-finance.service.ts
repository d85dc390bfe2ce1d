import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { nonBlank } from '../../platform/text-input.js';
import * as err from './merchant-finance.errors.js';
import * as repo from './merchant-finance.repository.js';
import type {
  MerchantFinanceAdd,
  MerchantFinanceFilter,
  MerchantFinancePageQuery,
  MerchantFinanceUpdate,
  MerchantFinanceView,
} from './merchant-finance.schemas.js';
import { resolveRecordOwner } from './record-owner.js';

/** The digits alone: spaces only group them for reading. */
const accountDigits = (text: string) => text.replace(/ /g, '');

/**
 * Merchant finance accounts (spec B 2.3 MerchantFinance; the operations are ours): the bank accounts
 * settlement orders are paid to. One living account per owner and kind, so getInvoiceSettlementCard
 * has exactly one merchant-settlement account of a merchant to show. Scoped as every record: another
 * merchant's or shop's account is never answered, in lists or alone.
 */
export function createMerchantFinanceService(deps: { db: Db }) {
  const { db } = deps;

  async function claimingOwner<T>(ebankType: number, shop: boolean, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (isUniqueViolation(e, repo.FINANCE_OWNER_INDEX)) throw err.accountTaken(ebankType, shop);
      throw e;
    }
  }

  async function visible(ctx: AuthedContext, id: number, trx?: Executor): Promise<MerchantFinanceView> {
    const finance = await repo.findFinance(trx ?? db, id, trx !== undefined);
    if (!finance) throw err.financeNotFound();
    assertInScope(ctx.account, finance);
    return finance;
  }

  return {
    add(ctx: AuthedContext, input: MerchantFinanceAdd): Promise<MerchantFinanceView> {
      const values: repo.FinanceValues = {
        ebankType: input.ebankType ?? repo.MERCHANT_SETTLEMENT,
        name: nonBlank('name', input.name),
        bank: nonBlank('bank', input.bank),
        bankAccount: accountDigits(input.bankAccount),
      };
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const owner = await resolveRecordOwner(trx, scopeOf(ctx.account), input, err.ownerRequired);
          const id = await claimingOwner(values.ebankType, owner.shopId !== null, () =>
            repo.insertFinance(trx, owner, values, ctx.account.id),
          );
          return (await repo.findFinance(trx, id))!;
        },
        (created) => created.id,
      );
    },

    async update(ctx: AuthedContext, input: MerchantFinanceUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, input.id, trx);
          if (input.merchantId != null && input.merchantId !== current.merchantId) throw err.ownerFixed('merchantId');
          if (input.shopId != null && input.shopId !== current.shopId) throw err.ownerFixed('shopId');
          const values: repo.FinanceValues = {
            ebankType: input.ebankType ?? current.ebankType,
            name: input.name == null ? current.name : nonBlank('name', input.name),
            bank: input.bank == null ? current.bank : nonBlank('bank', input.bank),
            bankAccount: input.bankAccount == null ? current.bankAccount : accountDigits(input.bankAccount),
          };
          await claimingOwner(values.ebankType, current.shopId !== null, () =>
            repo.updateFinance(trx, input.id, values, ctx.account.id),
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
          await visible(ctx, id, trx);
          await repo.softDeleteFinance(trx, id, ctx.account.id);
        },
        () => id,
      );
    },

    get: (ctx: AuthedContext, id: number): Promise<MerchantFinanceView> => visible(ctx, id),

    list(ctx: AuthedContext, filter: MerchantFinanceFilter): Promise<MerchantFinanceView[]> {
      return repo.listFinance(db, filter, scopeOf(ctx.account));
    },

    page(ctx: AuthedContext, query: MerchantFinancePageQuery): Promise<Page<MerchantFinanceView>> {
      return repo.pageFinance(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type MerchantFinanceService = ReturnType<typeof createMerchantFinanceService>;
