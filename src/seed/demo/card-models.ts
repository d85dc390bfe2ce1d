import type { IdAllocator } from './ids.js';
import { SPOTS, type Organisation } from './organisation.js';
import { cumulate } from './prng.js';
import { fromObjects, type Cell, type TableRows } from './rows.js';
import type { SpotPlan } from './scenic.js';

/**
 * The three allocation-enabled card kinds, each sold by a SKU of a tourism-card spu (resource_type 1)
 * of the platform, and their resource rules. Each kind uses all five settlement ways, with several
 * way-5 (monthly balanced allocation) parks so the allocation has something to split:
 *   1 by check count — buy_price and dated price periods (one period per calendar year of the span;
 *     the first way-1 rule of each kind splits every year into a winter-spring and a summer-autumn
 *     period with a different price and factor),
 *   2 buy-out — buyout_amount, 3 revenue share — share_percent, 4 unified by allocated amount,
 *   5 monthly balanced allocation.
 * daily_check_limit is 1, except a few parks with re-entry (2).
 */

interface ModelDef {
  name: string;
  /** yuan */
  price: number;
  /** [spot index, settlement way, daily check limit] */
  rules: ReadonlyArray<readonly [number, number, number]>;
  /** share of cards sold */
  share: number;
}

const MODEL_DEFS: readonly ModelDef[] = [
  {
    name: '畅游年卡',
    price: 198,
    share: 0.5,
    rules: [
      [0, 1, 1],
      [1, 1, 1],
      [2, 1, 1],
      [3, 2, 2],
      [4, 3, 1],
      [5, 3, 1],
      [6, 4, 1],
      [7, 4, 1],
      [8, 4, 1],
      [9, 5, 1],
      [10, 5, 2],
      [11, 5, 1],
      [12, 5, 1],
      [13, 5, 1],
    ],
  },
  {
    name: '惠民年卡',
    price: 98,
    share: 0.3,
    rules: [
      [0, 1, 1],
      [2, 1, 1],
      [4, 2, 2],
      [6, 3, 1],
      [8, 4, 1],
      [10, 4, 1],
      [12, 5, 1],
      [14, 5, 1],
      [16, 5, 1],
    ],
  },
  {
    name: '尊享年卡',
    price: 398,
    share: 0.2,
    rules: [
      [0, 1, 1],
      [1, 1, 1],
      [2, 1, 1],
      [3, 1, 2],
      [15, 1, 1],
      [4, 2, 1],
      [17, 2, 2],
      [5, 3, 1],
      [18, 3, 1],
      [6, 4, 1],
      [7, 4, 1],
      [19, 4, 1],
      [8, 5, 1],
      [9, 5, 1],
      [10, 5, 2],
      [11, 5, 1],
      [12, 5, 1],
      [13, 5, 1],
      [14, 5, 1],
      [16, 5, 1],
    ],
  },
];

export const VALIDITY_MONTHS = 12;
export const MODEL_SHARES = MODEL_DEFS.map((m) => m.share);

export interface RulePlan {
  spot: SpotPlan;
  way: number;
  limit: number;
}

export interface ModelPlan {
  index: number;
  id: number;
  name: string;
  rules: RulePlan[];
  /** cumulative popularity of the rules' spots: which park a holder of this kind visits */
  ruleCumulative: number[];
}

export interface CardModels {
  models: ModelPlan[];
  tables: TableRows[];
}

type Row = Record<string, Cell>;

const roundTo100 = (cents: number) => Math.round(cents / 100) * 100;

/** Price periods of a way-1 rule covering the calendar years firstYear…lastYear. */
function pricePeriods(
  buyPrice: number,
  firstYear: number,
  lastYear: number,
  split: boolean,
): Array<[string, string, number, number]> {
  const periods: Array<[string, string, number, number]> = [];
  for (let y = firstYear; y <= lastYear; y++) {
    const k = y - firstYear;
    const price = roundTo100(buyPrice * (1 + 0.05 * k));
    const factor = Math.min(1, 0.9 + 0.025 * k);
    if (split) {
      periods.push([`${y}-01-01`, `${y}-06-30`, price, factor]);
      periods.push([`${y}-07-01`, `${y}-12-31`, roundTo100(price * 1.1), Math.min(1, factor + 0.05)]);
    } else {
      periods.push([`${y}-01-01`, `${y}-12-31`, price, factor]);
    }
  }
  return periods;
}

export function buildCardModels(
  ids: IdAllocator,
  org: Organisation,
  spots: SpotPlan[],
  years: { first: number; last: number },
): CardModels {
  const spus: Row[] = [];
  const skus: Row[] = [];
  const models: Row[] = [];
  const rules: Row[] = [];
  const prices: Row[] = [];
  const plans = MODEL_DEFS.map((def, index): ModelPlan => {
    const priceCents = def.price * 100;
    const spuId = ids.next('spu');
    spus.push({
      id: spuId,
      name: def.name,
      shop_id: org.platform.shopId,
      merchant_id: org.platform.merchantId,
      resource_type: 1,
      cost_price: 0,
      stock: 1_000_000,
      status: 1,
      description: `${def.name}：一年内在合作景区按规则入园`,
    });
    const skuId = ids.next('sku');
    skus.push({
      id: skuId,
      goods_id: spuId,
      merchant_id: org.platform.merchantId,
      shop_id: org.platform.shopId,
      sku_name: `${def.name}（12 个月）`,
      show_price: priceCents,
      buy_price: priceCents,
      cost_price: 0,
      stock: 1_000_000,
      mold: 2,
      card_num: 1,
      status: 1,
    });
    const id = ids.next('card_model');
    models.push({
      id,
      name: def.name,
      price: priceCents,
      validity_months: VALIDITY_MONTHS,
      allocation_enabled: true,
      status: 1,
      sku_id: skuId,
      merchant_id: org.platform.merchantId,
    });
    let firstWayOne = true;
    const rulePlans = def.rules.map(([spotIndex, way, limit]): RulePlan => {
      const spot = spots[spotIndex];
      const ruleId = ids.next('card_model_resource_rule');
      const buyPrice = way === 1 ? roundTo100(spot.priceCents * 0.45) : null;
      rules.push({
        id: ruleId,
        card_model_id: id,
        resource_id: spot.spuId,
        settlement_way: way,
        buy_price: buyPrice,
        settlement_factor: way === 1 ? 0.9 : 1,
        buyout_amount: way === 2 ? spot.priceCents * 1500 : null,
        share_percent: way === 3 ? 10 + (spotIndex % 3) * 2.5 : null,
        daily_check_limit: limit,
      });
      if (buyPrice !== null) {
        for (const [start, end, price, factor] of pricePeriods(buyPrice, years.first, years.last, firstWayOne)) {
          prices.push({
            id: ids.next('card_model_resource_price'),
            rule_id: ruleId,
            start_date: start,
            end_date: end,
            price,
            settlement_factor: factor,
          });
        }
        firstWayOne = false;
      }
      return { spot, way, limit };
    });
    return {
      index,
      id,
      name: def.name,
      rules: rulePlans,
      ruleCumulative: cumulate(rulePlans.map((r) => SPOTS[r.spot.index].popularity)),
    };
  });
  return {
    models: plans,
    tables: [
      fromObjects('spu', spus),
      fromObjects('sku', skus),
      fromObjects('card_model', models),
      fromObjects('card_model_resource_rule', rules),
      fromObjects('card_model_resource_price', prices),
    ],
  };
}
