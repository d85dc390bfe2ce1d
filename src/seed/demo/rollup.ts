import type { ModelPlan } from './card-models.js';
import { sellerOf, type CardPlan } from './cards.js';
import type { Organisation } from './organisation.js';
import { encodeRows, isoTime, type Cell, type TableRows } from './rows.js';

/**
 * The statistics' check roll-up of the generated check-ins (stat_check_rollup, stat_card_use,
 * stat_resource_day), counted while the check rows are made and written beside them: the rows
 * foldNextChecks (statistics/check-rollup.repository.ts) would write when folding those checks,
 * without PostgreSQL reading a million checks back, sorting and grouping them (3.9 of the 12 s the
 * generator took for 1M checks). The generator writes only into a database without checks, so the
 * roll-up of its checks is the whole roll-up. The load through triggers still folds with the
 * repository, and the generator's test compares the two loads' roll-ups row for row, so this copy
 * of the fold's rule cannot drift from the repository's unnoticed.
 *
 * Every generated check has consume_num 1 and is living; every card is living, activated and of its
 * own model (so its roll-up rows are counted and have an activation day).
 */
export class CheckRollup {
  /** per model: each rule's slot, one slot per distinct resource */
  private readonly slotOfRule: Int32Array[];
  /** per model: the resource of each slot, ascending */
  private readonly resourceOfSlot: number[][];
  /** card i's first slot */
  private readonly offset: Int32Array;
  private readonly checks: Uint32Array;

  constructor(
    private readonly plan: CardPlan,
    private readonly models: ModelPlan[],
  ) {
    this.resourceOfSlot = models.map((m) => [...new Set(m.rules.map((r) => r.spot.spuId))].sort((a, b) => a - b));
    this.slotOfRule = models.map((m, k) =>
      Int32Array.from(m.rules, (r) => this.resourceOfSlot[k].indexOf(r.spot.spuId)),
    );
    this.offset = new Int32Array(plan.count + 1);
    for (let i = 0; i < plan.count; i++)
      this.offset[i + 1] = this.offset[i] + this.resourceOfSlot[plan.model[i]].length;
    this.checks = new Uint32Array(this.offset[plan.count]);
  }

  reset(): void {
    this.checks.fill(0);
  }

  /** One check of card `card` (its index in the plan) under its model's rule `rule`. */
  add(card: number, rule: number): void {
    this.checks[this.offset[card] + this.slotOfRule[this.plan.model[card]][rule]]++;
  }

  /** The three tables' rows, each in its primary key's order. */
  tables(org: Organisation): TableRows[] {
    const { plan, models, checks, offset, resourceOfSlot } = this;
    const card = (i: number) => {
      const seller = sellerOf(org, plan.channel[i]);
      return {
        id: plan.firstId + i,
        modelId: models[plan.model[i]].id,
        active: isoTime(plan.activeMs[i]),
        merchantId: seller.merchantId,
        shopId: seller.shopId,
      };
    };
    const byModelId = [...models.keys()].sort((a, b) => models[a].id - models[b].id);

    function* rollupRows(): Generator<Cell[]> {
      for (const m of byModelId) {
        for (let i = 0; i < plan.count; i++) {
          if (plan.model[i] !== m) continue;
          const c = card(i);
          for (let s = 0; s < resourceOfSlot[m].length; s++) {
            const n = checks[offset[i] + s];
            if (n > 0) yield [c.modelId, c.id, resourceOfSlot[m][s], n, n, c.active, c.merchantId, c.shopId, true];
          }
        }
      }
    }

    function* cardUseRows(): Generator<Cell[]> {
      for (let i = 0; i < plan.count; i++) {
        let n = 0;
        for (let k = offset[i]; k < offset[i + 1]; k++) n += checks[k];
        if (n === 0) continue;
        const c = card(i);
        yield [c.id, c.modelId, n, c.active, c.merchantId, c.shopId, true];
      }
    }

    // stat_resource_day: entries per UTC day of the activation (stat_utc_day), model, resource and
    // seller, in its primary key's order (day first).
    const dayEntries = new Map<
      string,
      [day: string, modelId: number, resourceId: number, merchantId: number, shopId: number, entries: number]
    >();
    for (let i = 0; i < plan.count; i++) {
      const c = card(i);
      const m = plan.model[i];
      for (let s = 0; s < resourceOfSlot[m].length; s++) {
        const n = checks[offset[i] + s];
        if (n === 0) continue;
        const day = c.active.slice(0, 10);
        const key = `${day} ${c.modelId} ${resourceOfSlot[m][s]} ${c.merchantId} ${c.shopId}`;
        const entry = dayEntries.get(key);
        if (entry) entry[5] += n;
        else dayEntries.set(key, [day, c.modelId, resourceOfSlot[m][s], c.merchantId, c.shopId, n]);
      }
    }
    const byKey = (a: readonly (string | number)[], b: readonly (string | number)[]) => {
      for (let k = 0; k < 5; k++) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
      return 0;
    };
    const dayRows = [...dayEntries.values()]
      .sort(byKey)
      .map(([day, modelId, resourceId, merchantId, shopId, entries]): Cell[] => [
        modelId,
        resourceId,
        merchantId,
        shopId,
        day,
        entries,
      ]);

    return [
      {
        table: 'stat_check_rollup',
        columns: [
          'card_model_id',
          'card_id',
          'resource_id',
          'entries',
          'checks',
          'active_time',
          'merchant_id',
          'shop_id',
          'counted',
        ],
        chunks: (enc, maxRows) => encodeRows(rollupRows(), enc, maxRows),
        cells: rollupRows,
      },
      {
        table: 'stat_card_use',
        columns: ['card_id', 'card_model_id', 'entries', 'active_time', 'merchant_id', 'shop_id', 'counted'],
        chunks: (enc, maxRows) => encodeRows(cardUseRows(), enc, maxRows),
        cells: cardUseRows,
      },
      {
        table: 'stat_resource_day',
        columns: ['card_model_id', 'resource_id', 'merchant_id', 'shop_id', 'active_day', 'entries'],
        chunks: (enc, maxRows) => encodeRows(dayRows, enc, maxRows),
        cells: () => dayRows,
        total: dayRows.length,
      },
    ];
  }
}
