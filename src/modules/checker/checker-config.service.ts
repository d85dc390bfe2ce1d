import { assertInScope, scopeOf, type Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import { conflict, notFound } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import * as repo from './checker-config.repository.js';
import {
  DEFAULT_CONFIG_TYPE,
  type CheckerConfigAdd,
  type CheckerConfigFilter,
  type CheckerConfigPageQuery,
  type CheckerConfigUpdate,
  type CheckerConfigView,
} from './checker-config.schemas.js';
import { optionalText as optional } from '../../platform/text-input.js';

/** The owner of a default the caller adds: its shop, its merchant, or (platform staff) every verifier. */
function ownersOf(scope: Scope): { merchantId: number | null; shopId: number | null } {
  if (scope.kind === 'platform') return { merchantId: null, shopId: null };
  return { merchantId: scope.merchantId, shopId: scope.kind === 'shop' ? scope.shopId : null };
}

function defaultOwnerText(v: repo.ConfigValues): string {
  if (v.shopId !== null) return 'for the verifiers of this shop';
  return v.merchantId !== null ? 'for the verifiers of this merchant' : 'for every verifier';
}

/**
 * Verifier configuration (spec B 4.2): settings the verifier's app receives at login (configList).
 * A setting belongs to its verifier, so a merchant user manages its merchant's verifiers' settings and a
 * shop user its shop's. One without a verifier is a default of the caller's shop, merchant or (platform
 * staff) of every verifier, which a more particular setting of the same item overrides at login
 * (docs/adr/0022-the-spec-smallest-requests-get-documented-defaults.md).
 */
export function createCheckerConfigService(deps: { db: Db }) {
  const { db } = deps;

  async function verifierInScope(trx: Executor, ctx: AuthedContext, checkerId: number): Promise<repo.VerifierOwner> {
    const owner = await repo.findVerifierOwner(trx, checkerId);
    if (!owner) throw notFound('verifier (checkerId)');
    assertInScope(ctx.account, owner);
    return owner;
  }

  async function visible(ctx: AuthedContext, id: number, trx?: Executor): Promise<CheckerConfigView> {
    const config = await repo.findConfig(trx ?? db, id, trx !== undefined);
    if (!config) throw notFound('verifier config');
    assertInScope(ctx.account, config);
    return config;
  }

  async function claimingItem<T>(v: repo.ConfigValues, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, repo.ITEM_INDEX))
        throw conflict(`item "${v.item}" is already configured for this verifier`);
      if (isUniqueViolation(err, repo.DEFAULT_ITEM_INDEX))
        throw conflict(`item "${v.item}" already has a default ${defaultOwnerText(v)}`);
      throw err;
    }
  }

  return {
    async add(ctx: AuthedContext, input: CheckerConfigAdd): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const name = optional(input.name, null);
          const owner =
            input.checkerId != null ? await verifierInScope(trx, ctx, input.checkerId) : ownersOf(scopeOf(ctx.account));
          const v: repo.ConfigValues = {
            checkerId: input.checkerId ?? null,
            merchantId: owner.merchantId,
            shopId: owner.shopId,
            configType: input.configType ?? DEFAULT_CONFIG_TYPE,
            // A setting named but not keyed is keyed by its name; one with neither has no item until one is set.
            item: input.item?.trim() ?? name,
            name,
            value: optional(input.value, null),
            remark: optional(input.remark, null),
          };
          return claimingItem(v, () => repo.insertConfig(trx, v, ctx.account.id));
        },
        (id) => id,
      );
    },

    async update(ctx: AuthedContext, input: CheckerConfigUpdate): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const current = await visible(ctx, input.id, trx);
          const checkerId = input.checkerId ?? current.checkerId;
          // A default stays its owner's until a verifier is named for it.
          const owner = checkerId !== null ? await verifierInScope(trx, ctx, checkerId) : current;
          const v: repo.ConfigValues = {
            checkerId,
            merchantId: owner.merchantId,
            shopId: owner.shopId,
            configType: input.configType ?? current.configType,
            item: input.item?.trim() || current.item || null,
            name: optional(input.name, current.name),
            value: optional(input.value, current.value),
            remark: optional(input.remark, current.remark),
          };
          await claimingItem(v, () => repo.updateConfig(trx, input.id, v, ctx.account.id));
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
          await repo.softDeleteConfig(trx, id, ctx.account.id);
        },
        () => id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<CheckerConfigView> {
      return visible(ctx, id);
    },

    list(ctx: AuthedContext, filter: CheckerConfigFilter): Promise<CheckerConfigView[]> {
      return repo.listConfigs(db, filter, scopeOf(ctx.account));
    },

    page(ctx: AuthedContext, query: CheckerConfigPageQuery): Promise<Page<CheckerConfigView>> {
      return repo.pageConfigs(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type CheckerConfigService = ReturnType<typeof createCheckerConfigService>;
