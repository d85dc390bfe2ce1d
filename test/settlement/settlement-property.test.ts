import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actualAmount, decimalUnits, revenueShare } from '../../src/modules/settlement/settlement-calc.js';
import {
  createCard,
  createCardModel,
  createCardModelRule,
  createMerchant,
  createShop,
  createSku,
  createSpu,
} from '../helpers/factories.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Properties of settlement money: an order's totals are the sums of its details (and the orders of
 * an estimation share its total exactly), and afresh after new check-ins changes exactly the details
 * those check-ins affect.
 */
let t: TestApp;
let platform: StaffSession;
let merchants: number[];
let shops: number[];

beforeAll(async () => {
  t = await createTestApp();
  platform = await staffSession(t, {
    kind: 'platform',
    permissions: ['settlement:read', 'settlement:write', 'estimation:read', 'estimation:write'],
  });
  merchants = [await createMerchant(t.db), await createMerchant(t.db)];
  shops = [
    await createShop(t.db, { merchant_id: merchants[0] }),
    await createShop(t.db, { merchant_id: merchants[1] }),
  ];
});
afterAll(() => t?.close());

const resource = fc.record({
  way: fc.integer({ min: 1, max: 5 }),
  merchant: fc.integer({ min: 0, max: 1 }),
  buyPrice: fc.integer({ min: 0, max: 100_000 }),
  factor: fc.integer({ min: 0, max: 20_000 }).map((u) => (u / 10_000).toFixed(4)),
  buyout: fc.integer({ min: 0, max: 10_000_000 }),
  share: fc.integer({ min: 0, max: 1_000_000 }).map((u) => (u / 10_000).toFixed(4)),
  /** checks before afresh and added after, as days 1–10 of March 2026 with consume_num */
  checks: fc.array(fc.record({ day: fc.integer({ min: 1, max: 10 }), n: fc.integer({ min: 1, max: 3 }) }), {
    maxLength: 4,
  }),
  added: fc.array(fc.record({ day: fc.integer({ min: 1, max: 10 }), n: fc.integer({ min: 1, max: 3 }) }), {
    maxLength: 2,
  }),
});
const world = fc.record({
  resources: fc.array(resource, { minLength: 1, maxLength: 5 }),
  issueNum: fc.integer({ min: 0, max: 5000 }),
  profit: fc.integer({ min: 0, max: 100_000 }),
});

type Detail = {
  resourceId: number;
  checkNum: number;
  settlementAmount: number;
  settlementAmountActual: number;
  ticketPriceInfo: unknown[];
};

describe('settlement money (property)', () => {
  it('totals equal the sum of details; afresh after new check-ins changes exactly the affected details', async () => {
    await fc.assert(
      fc.asyncProperty(world, async ({ resources, issueNum, profit }) => {
        const model = await createCardModel(t.db);
        const card = await createCard(t.db, { card_model_id: model });
        const made: Array<{ spu: number; sku: number; way: number }> = [];
        for (const r of resources) {
          const spu = await createSpu(t.db, { merchant_id: merchants[r.merchant], shop_id: shops[r.merchant] });
          const sku = await createSku(t.db, { goods_id: spu });
          const rule = await createCardModelRule(t.db, {
            card_model_id: model,
            resource_id: spu,
            settlement_way: r.way,
            buy_price: r.buyPrice,
            settlement_factor: r.factor,
            buyout_amount: r.buyout,
            share_percent: r.share,
          });
          // A price period over days 3–6 so way 1 has dated and undated days.
          await t.db
            .insertInto('card_model_resource_price')
            .values({
              rule_id: rule,
              start_date: '2026-03-03',
              end_date: '2026-03-06',
              price: r.buyPrice + 100,
              settlement_factor: '0.5',
            })
            .execute();
          made.push({ spu, sku, way: r.way });
        }
        const check = (i: number, day: number, n: number) =>
          t.db
            .insertInto('card_check')
            .values({
              card_id: card,
              card_model_id: model,
              sku_id: made[i].sku,
              resource_id: made[i].spu,
              consume_num: n,
              check_time: `2026-03-${String(day).padStart(2, '0')} 12:00:00`,
              check_date: `2026-03-${String(day).padStart(2, '0')}`,
            })
            .execute();
        for (const [i, r] of resources.entries()) for (const c of r.checks) await check(i, c.day, c.n);

        const period = ['2026-03-01', '2026-03-10'];
        const calc = await t.post(
          '/manage-api/estimation/calcEstimationCard',
          { cardModelId: model, issueNum, profit, estimationPeriod: period },
          platform.token,
        );
        expect(calc.body.errcode, calc.body.errmsg).toBe(0);
        const sub = await t.post(
          '/manage-api/estimation/submitEstimationCard',
          { id: calc.body.data.id },
          platform.token,
        );
        expect(sub.body.errcode, sub.body.errmsg).toBe(0);
        const ids: number[] = sub.body.data.settlementIds;

        const read = async (id: number) =>
          (await t.post('/manage-api/settlement/getSettlementCard', { id }, platform.token)).body.data as {
            totalAmount: number;
            checkNum: number;
            details: Detail[];
          };
        const sums = (o: { details: Detail[] }) => ({
          totalAmount: o.details.reduce((s, d) => s + d.settlementAmountActual, 0),
          checkNum: o.details.reduce((s, d) => s + d.checkNum, 0),
        });
        const before = await Promise.all(ids.map(read));
        for (const o of before) expect({ totalAmount: o.totalAmount, checkNum: o.checkNum }).toEqual(sums(o));
        expect(before.reduce((s, o) => s + o.totalAmount, 0)).toBe(calc.body.data.totalAmount);

        for (const [i, r] of resources.entries()) for (const c of r.added) await check(i, c.day, c.n);
        for (const id of ids) {
          const detail = await t.db
            .selectFrom('settlement_detail')
            .select('id')
            .where('settlement_id', '=', id)
            .executeTakeFirstOrThrow();
          const res = await t.post(
            '/manage-api/settlement/afreshSettlementCard',
            { settlementId: id, settlementDetailId: detail.id },
            platform.token,
          );
          expect(res.body.errcode, res.body.errmsg).toBe(0);
        }
        const after = await Promise.all(ids.map(read));
        const way4Touched = resources.some((r) => r.way === 4 && r.added.length > 0);
        for (const [k, o] of after.entries()) {
          expect({ totalAmount: o.totalAmount, checkNum: o.checkNum }).toEqual(sums(o));
          for (const d of o.details) {
            const i = made.findIndex((m) => m.spu === d.resourceId);
            const old = before[k].details.find((x) => x.resourceId === d.resourceId)!;
            const added = resources[i].added.reduce((s, c) => s + c.n, 0);
            expect(d.checkNum).toBe(old.checkNum + added);
            const affected = added > 0 || (made[i].way === 4 && way4Touched);
            if (!affected) expect(d).toEqual(old);
            if (made[i].way === 2) expect(d.settlementAmount).toBe(resources[i].buyout);
          }
        }
      }),
      { numRuns: 8 },
    );
  }, 120_000);

  it('computes revenue shares and adjusted amounts exactly, rounding half away from zero', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (issue, profit, units) => {
          const exact = BigInt(issue) * BigInt(profit) * BigInt(units); // × 10^-6 is the share in cents
          const expected = (exact * 2n + 1_000_000n) / 2_000_000n;
          expect(revenueShare(issue, profit, (units / 10_000).toFixed(4))).toBe(Number(expected));
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 9 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 10 ** 6 }),
        fc.integer({ min: 0, max: 10 ** 6 }),
        (amount, units, inc, dec) => {
          const scaled = BigInt(amount) * BigInt(units);
          const rounded = (scaled * 2n + 10_000n) / 20_000n;
          expect(actualAmount(amount, (units / 10_000).toFixed(4), inc, dec)).toBe(Number(rounded) + inc - dec);
        },
      ),
    );
    // Details carry the stored numeric(10, 4) factor as a number: it must compute as its text does.
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 10n - 1n }), (units) => {
        const text = `${units / 10_000n}.${String(units % 10_000n).padStart(4, '0')}`;
        expect(decimalUnits(Number(text).toFixed(4))).toBe(decimalUnits(text));
      }),
    );
    expect(decimalUnits('12.5')).toBe(125_000n);
    expect(decimalUnits('0.0001')).toBe(1n);
  });
});
