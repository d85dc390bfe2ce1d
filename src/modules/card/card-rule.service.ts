import { scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import { badRequest, conflict } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { parseDateTime } from '../../platform/time.js';
import { foreignResource, priceNotFound, resourceNotFound, ruleExists, ruleNotFound } from './card.errors.js';
import type { CardModel } from './card-model.schemas.js';
import type { CardModelService } from './card-model.service.js';
import * as repo from './card-rule.repository.js';
import type { PriceAdd, PriceUpdate, Rule, RuleAdd, RulePrice, RuleUpdate } from './card-rule.schemas.js';
import { isPlatformMerchant } from '../merchant/index.js';

/** A number with at most four decimals (numeric(…, 4) columns): more would be rounded silently. */
function fourDecimals(field: string, value: number): number {
  if (Math.abs(value * 10_000 - Math.round(value * 10_000)) > 1e-6)
    throw badRequest(`${field} is invalid: must have at most 4 decimals`);
  return value;
}

/** The parameters of a rule, with the one its settlement way needs required. */
function ruleValues(input: RuleAdd | RuleUpdate): repo.RuleValues {
  const way = input.settlementWay;
  if (way === 1 && input.buyPrice == null)
    throw badRequest('buyPrice is required for settlement way 1 (by check count)');
  if (way === 2 && input.buyoutAmount == null)
    throw badRequest('buyoutAmount is required for settlement way 2 (buy-out)');
  if (way === 3 && input.sharePercent == null)
    throw badRequest('sharePercent is required for settlement way 3 (revenue share)');
  return {
    settlementWay: way,
    buyPrice: input.buyPrice ?? null,
    settlementFactor: fourDecimals('settlementFactor', input.settlementFactor ?? 1),
    buyoutAmount: input.buyoutAmount ?? null,
    sharePercent: input.sharePercent == null ? null : fourDecimals('sharePercent', input.sharePercent),
    dailyCheckLimit: input.dailyCheckLimit ?? 1,
  };
}

function day(field: string, text: string): string {
  if (!parseDateTime(text)) throw badRequest(`${field} is invalid: "${text}" is not a real date (YYYY-MM-DD)`);
  return text;
}

function priceValues(input: PriceAdd | PriceUpdate): repo.PriceValues {
  const startDate = day('startDate', input.startDate);
  const endDate = day('endDate', input.endDate);
  if (endDate < startDate) throw badRequest(`endDate is invalid: ${endDate} is before startDate ${startDate}`);
  return {
    startDate,
    endDate,
    price: input.price,
    settlementFactor: fourDecimals('settlementFactor', input.settlementFactor ?? 1),
  };
}

const overlaps = (v: repo.PriceValues, clash: RulePrice) =>
  conflict(
    `the period ${v.startDate} – ${v.endDate} overlaps price period ${clash.id} (${clash.startDate} – ${clash.endDate}) of the rule`,
  );

/**
 * Rules of a card model (one per resource) and their dated price periods. Whoever may change the card
 * model changes its rules; whoever sees it sees them. A merchant's card model admits only that
 * merchant's resources: settlement is owed to the resource's owner (docs/domain.md §3), who never agreed to
 * another merchant's terms. Platform users set up the platform's cards (no merchant, or a merchant of
 * type 1, the platform's own, as the demo data's are) with any merchant's resources. Price periods of
 * a rule never overlap: the rule's row is locked while a period is checked and written, so two
 * concurrent writes on any instance cannot both pass.
 */
export function createCardRuleService(deps: { db: Db; models: CardModelService }) {
  const { db, models } = deps;

  /** 403 unless the model may admit a resource of `resourceMerchantId` for this caller (see above). */
  async function assertAdmissible(
    ctx: AuthedContext,
    exec: Trx | Db,
    model: CardModel,
    resourceMerchantId: number,
  ): Promise<void> {
    if (model.merchantId === resourceMerchantId) return;
    const platformCard = model.merchantId === null || (await isPlatformMerchant(exec, model.merchantId));
    if (platformCard && scopeOf(ctx.account).kind === 'platform') return;
    throw foreignResource();
  }

  /**
   * A living rule whose card model the caller may see (or change). With `terms` (changing what the rule
   * pays), its resource must also be one the model may admit: a rule made before that was checked can
   * then only be deleted.
   */
  async function reachableRule(
    ctx: AuthedContext,
    id: number,
    opts: { trx?: Trx; change?: boolean; terms?: boolean } = {},
  ): Promise<Rule> {
    const rule = await repo.findRule(opts.trx ?? db, id, opts.trx !== undefined);
    if (!rule) throw ruleNotFound();
    const model = await models.reachable(ctx, rule.cardModelId, opts);
    if (opts.terms) await assertAdmissible(ctx, opts.trx ?? db, model, rule.merchantId);
    return rule;
  }

  async function priceRule(
    ctx: AuthedContext,
    trx: Trx,
    priceId: number,
    terms: boolean,
  ): Promise<{ price: RulePrice; rule: Rule }> {
    const price = await repo.findPrice(trx, priceId);
    if (!price) throw priceNotFound();
    return { price, rule: await reachableRule(ctx, price.ruleId, { trx, change: true, terms }) };
  }

  return {
    async add(ctx: AuthedContext, input: RuleAdd): Promise<Rule> {
      const values = ruleValues(input);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const model = await models.reachable(ctx, input.cardModelId, { trx, change: true });
          const resource = await repo.findResource(trx, input.resourceId);
          if (!resource) throw resourceNotFound();
          await assertAdmissible(ctx, trx, model, resource.merchantId);
          if (resource.resourceType === 1)
            throw badRequest('resourceId is invalid: a tourism card cannot be a resource of a card model');
          try {
            const id = await repo.insertRule(trx, input.cardModelId, input.resourceId, values, ctx.account.id);
            return (await repo.findRule(trx, id))!;
          } catch (err) {
            if (isUniqueViolation(err, repo.RULE_INDEX)) throw ruleExists(resource.name);
            throw err;
          }
        },
        (r) => r.id,
      );
    },

    async update(ctx: AuthedContext, input: RuleUpdate): Promise<void> {
      const values = ruleValues(input);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await reachableRule(ctx, input.id, { trx, change: true, terms: true });
          await repo.updateRule(trx, input.id, values, ctx.account.id);
        },
        () => input.id,
      );
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await reachableRule(ctx, id, { trx, change: true });
          await repo.softDeleteRule(trx, id, ctx.account.id);
        },
        () => id,
      );
    },

    get: (ctx: AuthedContext, id: number): Promise<Rule> => reachableRule(ctx, id),

    async list(ctx: AuthedContext, cardModelId: number): Promise<Rule[]> {
      await models.reachable(ctx, cardModelId);
      return repo.listRules(db, cardModelId);
    },

    async addPrice(ctx: AuthedContext, input: PriceAdd): Promise<RulePrice> {
      const values = priceValues(input);
      return loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await reachableRule(ctx, input.ruleId, { trx, change: true, terms: true });
          const clash = await repo.overlappingPrice(trx, input.ruleId, values.startDate, values.endDate, null);
          if (clash) throw overlaps(values, clash);
          return (await repo.findPrice(trx, await repo.insertPrice(trx, input.ruleId, values, ctx.account.id)))!;
        },
        (p) => p.id,
      );
    },

    async updatePrice(ctx: AuthedContext, input: PriceUpdate): Promise<void> {
      const values = priceValues(input);
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          const { price } = await priceRule(ctx, trx, input.id, true);
          const clash = await repo.overlappingPrice(trx, price.ruleId, values.startDate, values.endDate, price.id);
          if (clash) throw overlaps(values, clash);
          await repo.updatePrice(trx, input.id, values, ctx.account.id);
        },
        () => input.id,
      );
    },

    async removePrice(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await priceRule(ctx, trx, id, false);
          await repo.deletePrice(trx, id);
        },
        () => id,
      );
    },

    async prices(ctx: AuthedContext, ruleId: number): Promise<RulePrice[]> {
      return (await reachableRule(ctx, ruleId)).prices;
    },
  };
}

export type CardRuleService = ReturnType<typeof createCardRuleService>;
