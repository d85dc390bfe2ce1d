import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import { conflict, notFound } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import * as repo from './checker-config.repository.js';
import type {
  CheckerConfigAdd, CheckerConfigFilter, CheckerConfigPageQuery, CheckerConfigUpdate, CheckerConfigView,
} from './checker-config.schemas.js';
import { optionalText as optional } from '../../platform/text-input.js';

/**
 * Verifier configuration (spec B 4.2): settings the verifier's app receives at login (configList).
 * A config belongs to its verifier, so a merchant user manages its merchant's verifiers' settings and a
 * shop user its shop's.
 */
export function createCheckerConfigService(deps: { db: Db }) {
  const { db } = deps;

  async function verifierInScope(trx: Executor, ctx: AuthedContext, checkerId: number): Promise<repo.VerifierOwner> {
    const owner = await repo.findVerifierOwner(trx, checkerId);
    if (!owner) throw notFound('verifier (checkerId)');
    assertInScope(ctx.account, owner);
    return owner;
  }

  async function visible(ctx: AuthedContext, id: number, trx?: Executor): Promise<repo.OwnedConfig> {
    const config = await repo.findConfig(trx ?? db, id, trx !== undefined);
    if (!config) throw notFound('verifier config');
    assertInScope(ctx.account, config);
    return config;
  }

  async function claimingItem<T>(item: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, repo.ITEM_INDEX)) throw conflict(`item "${item}" is already configured for this verifier`);
      throw err;
    }
  }

  return {
    async add(ctx: AuthedContext, input: CheckerConfigAdd): Promise<void> {
      await loggedTransaction(db, ctx, async (trx) => {
        const owner = await verifierInScope(trx, ctx, input.checkerId);
        const v: repo.ConfigValues = {
          checkerId: input.checkerId,
          merchantId: owner.merchantId,
          configType: input.configType,
          item: input.item.trim(),
          name: optional(input.name, null),
          value: optional(input.value, null),
          remark: optional(input.remark, null),
        };
        return claimingItem(v.item, () => repo.insertConfig(trx, v, ctx.account.id));
      }, (id) => id);
    },

    async update(ctx: AuthedContext, input: CheckerConfigUpdate): Promise<void> {
      await loggedTransaction(db, ctx, async (trx) => {
        const current = await visible(ctx, input.id, trx);
        const checkerId = input.checkerId ?? current.checkerId;
        const owner = await verifierInScope(trx, ctx, checkerId);
        const v: repo.ConfigValues = {
          checkerId,
          merchantId: owner.merchantId,
          configType: input.configType ?? current.configType,
          item: input.item?.trim() || current.item,
          name: optional(input.name, current.name),
          value: optional(input.value, current.value),
          remark: optional(input.remark, current.remark),
        };
        await claimingItem(v.item, () => repo.updateConfig(trx, input.id, v, ctx.account.id));
      }, () => input.id);
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(db, ctx, async (trx) => {
        await visible(ctx, id, trx);
        await repo.softDeleteConfig(trx, id, ctx.account.id);
      }, () => id);
    },

    async get(ctx: AuthedContext, id: number): Promise<CheckerConfigView> {
      return repo.toWire(await visible(ctx, id));
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
