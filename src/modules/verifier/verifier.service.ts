import { generatePassword } from '../../platform/auth/generated-password.js';
import { hashPassword } from '../../platform/auth/password.js';
import { assertInScope, scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { TokenService } from '../../platform/auth/tokens.js';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import { badRequest } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import {
  checkerNotFound,
  entranceNotFound,
  merchantNotFound,
  merchantRequired,
  mobileInUse,
  placeOutsideScope,
  shopNotFound,
  skuNotFound,
} from './verifier.errors.js';
import * as repo from './verifier.repository.js';
import type {
  Checker,
  CheckerAdd,
  CheckerAdded,
  CheckerFilter,
  CheckerPageQuery,
  CheckerRelationChange,
  CheckerStatusChange,
  CheckerUpdate,
  Relation,
} from './verifier.schemas.js';
import { findMerchantState, assertMerchantEnabled } from '../merchant/index.js';

function nonBlank(field: string, text: string): string {
  const trimmed = text.trim();
  if (!trimmed) throw badRequest(`${field} is required`);
  return trimmed;
}

interface Owner {
  merchantId: number;
  shopId: number | null;
}

/**
 * Verifiers: added with a generated first password, placed in the caller's merchant or shop, related
 * to the SKUs and gates of their own merchant (their own shop when they have one). Disabling one or
 * resetting its password ends its app sessions at once. One enabled verifier per mobile (the unique
 * index checker_mobile_active_uq), so a login by mobile finds exactly one.
 */
export function createVerifierService(deps: { db: Db; tokens: TokenService }) {
  const { db, tokens } = deps;

  async function claimingMobile<T>(mobile: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, repo.MOBILE_ACTIVE_INDEX)) throw mobileInUse(mobile);
      throw err;
    }
  }

  async function ownerFor(trx: Trx, scope: Scope, input: CheckerAdd): Promise<Owner> {
    let merchantId = input.merchantId ?? (scope.kind === 'platform' ? null : scope.merchantId);
    const shopId = input.shopId ?? (scope.kind === 'shop' ? scope.shopId : null);
    if (shopId != null) {
      const shopMerchant = await repo.findShopOwner(trx, shopId);
      if (shopMerchant == null || (merchantId != null && shopMerchant !== merchantId)) throw shopNotFound();
      merchantId = shopMerchant;
    }
    if (merchantId == null) throw merchantRequired();
    if (scope.kind !== 'platform' && merchantId !== scope.merchantId) throw placeOutsideScope();
    if (scope.kind === 'shop' && shopId !== scope.shopId) throw placeOutsideScope();
    const merchant = await findMerchantState(trx, merchantId);
    if (!merchant) throw merchantNotFound();
    assertMerchantEnabled(merchant);
    return { merchantId, shopId };
  }

  /** The relations checked against the verifier's owner and deduplicated. */
  async function checkedRelations(
    trx: Trx,
    owner: Owner,
    wanted: CheckerRelationChange['relations'],
  ): Promise<repo.RelationRow[]> {
    const unique = new Map<string, { skuId: number; entranceId: number | null }>();
    for (const r of wanted)
      unique.set(`${r.skuId}:${r.entranceId ?? 0}`, { skuId: r.skuId, entranceId: r.entranceId ?? null });
    const list = [...unique.values()];
    const skus = await repo.findSkus(trx, [...new Set(list.map((r) => r.skuId))]);
    const entrances = await repo.findEntrances(
      trx,
      list.flatMap((r) => (r.entranceId == null ? [] : [r.entranceId])),
    );
    return list.map((r) => {
      const sku = skus.get(r.skuId);
      if (!sku || sku.merchantId !== owner.merchantId || (owner.shopId != null && sku.shopId !== owner.shopId))
        throw skuNotFound(r.skuId);
      if (r.entranceId != null && entrances.get(r.entranceId) !== r.skuId)
        throw entranceNotFound(r.entranceId, r.skuId);
      return { ...r, merchantId: sku.merchantId, shopId: sku.shopId };
    });
  }

  async function visible(ctx: AuthedContext, id: number, trx?: Trx): Promise<Checker> {
    const checker = await repo.findChecker(trx ?? db, id, trx !== undefined);
    if (!checker) throw checkerNotFound();
    assertInScope(ctx.account, checker);
    return checker;
  }

  return {
    async add(ctx: AuthedContext, input: CheckerAdd): Promise<CheckerAdded> {
      const name = nonBlank('name', input.name);
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      const checker = await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const owner = await ownerFor(trx, scopeOf(ctx.account), input);
          const relations = await checkedRelations(trx, owner, input.relations ?? []);
          const id = await claimingMobile(input.mobile, () =>
            repo.insertChecker(
              trx,
              { mobile: input.mobile, name, passwordHash, ...owner, sskFlag: input.sskFlag ?? false },
              ctx.account.id,
            ),
          );
          await repo.replaceRelations(trx, id, relations, ctx.account.id);
          return (await repo.findChecker(trx, id))!;
        },
        (c) => c.id,
      );
      return { ...checker, password };
    },

    async update(ctx: AuthedContext, input: CheckerUpdate): Promise<void> {
      const name = nonBlank('name', input.name);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, input.id, trx);
          await claimingMobile(input.mobile, () =>
            repo.updateChecker(
              trx,
              input.id,
              { mobile: input.mobile, name, sskFlag: input.sskFlag ?? current.sskFlag },
              ctx.account.id,
            ),
          );
        },
        () => input.id,
      );
    },

    async setStatus(ctx: AuthedContext, input: CheckerStatusChange): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, input.id, trx);
          if (current.status === input.status) return;
          await claimingMobile(current.mobile, () =>
            repo.setCheckerStatus(trx, input.id, input.status, ctx.account.id),
          );
        },
        () => input.id,
      );
      if (input.status === 0) await tokens.revokeAccount('checker', input.id);
    },

    async resetPassword(ctx: AuthedContext, id: number): Promise<{ password: string }> {
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await visible(ctx, id, trx);
          await repo.setCheckerPassword(trx, id, passwordHash, ctx.account.id);
        },
        () => id,
      );
      await tokens.revokeAccount('checker', id);
      return { password };
    },

    async setRelations(ctx: AuthedContext, input: CheckerRelationChange): Promise<Relation[]> {
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const checker = await visible(ctx, input.checkerId, trx);
          await repo.replaceRelations(
            trx,
            checker.id,
            await checkedRelations(trx, checker, input.relations),
            ctx.account.id,
          );
          return (await repo.findChecker(trx, checker.id))!.relations;
        },
        () => input.checkerId,
      );
    },

    async relations(ctx: AuthedContext, checkerId: number): Promise<Relation[]> {
      return (await visible(ctx, checkerId)).relations;
    },

    get: (ctx: AuthedContext, id: number): Promise<Checker> => visible(ctx, id),

    list: (ctx: AuthedContext, filter: CheckerFilter): Promise<Checker[]> =>
      repo.listCheckers(db, filter, scopeOf(ctx.account)),

    page: (ctx: AuthedContext, query: CheckerPageQuery): Promise<Page<Checker>> =>
      repo.pageCheckers(db, query, scopeOf(ctx.account), query),
  };
}

export type VerifierService = ReturnType<typeof createVerifierService>;
