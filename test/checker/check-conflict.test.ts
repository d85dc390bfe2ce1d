import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  createSpot,
  offlineCard,
  scopeReaders,
  verifierAt,
  wire,
  yesterdayAt,
  type Spot,
  type Verifier,
} from './checkin-fixtures.js';

/**
 * Offline scans over a bound (docs/domain.md §4.1, issue 39): two gates admit the same card offline
 * beyond its daily limit; both checks are stored, the later to arrive is marked, and the manage
 * channel pages the conflict (queryCheckConflictPage), scoped like the other pages.
 */

const SYNC = '/app-api/checker/syncOfflineChecks';
const PAGE = '/manage-api/checker/queryCheckConflictPage';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const card = (s: Spot) => offlineCard(t.db, s.modelId);

async function syncOne(v: Verifier, s: Spot, cardNumber: string, at: Date, entranceId = s.gate1) {
  const scan = { nonce: `g-${uniq()}`, cardNumber, skuId: s.skuId, entranceId, checkTime: wire(at) };
  const res = await t.post(SYNC, { scans: [scan] }, v.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return { scan, result: res.body.data.results[0] as Record<string, any> };
}

/** Two gates of a spot (limit 1 a day), each with its verifier, admit the card offline; the second to upload is marked. */
async function twoGatesAdmit(s: Spot, at1: Date, at2: Date) {
  const north = s.checker;
  const south = await verifierAt(t, {
    merchantId: s.merchantId,
    shopId: s.shopId,
    skuId: s.skuId,
    entranceId: s.gate2,
  });
  const c = await card(s);
  const first = await syncOne(north, s, c.cardNumber, at1);
  const second = await syncOne(south, s, c.cardNumber, at2, s.gate2);
  return { card: c, north, south, first, second };
}

const page = async (token: string, body: Record<string, unknown> = {}) => {
  const res = await t.post(PAGE, { pageSize: 50, ...body }, token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data as { list: Array<Record<string, unknown>>; total: number };
};

describe('a conflict between two offline gates', () => {
  it('records both checks, marks the later to arrive with the bound it broke, and answers a re-send with it', async () => {
    const s = await createSpot(t);
    // The south gate's scan was made earlier, but arrives second: it is the one over the limit.
    const { card: c, south, first, second } = await twoGatesAdmit(s, yesterdayAt(11), yesterdayAt(10));
    expect(first.result).toEqual({ nonce: first.scan.nonce, result: 'recorded', id: expect.any(Number) });
    expect(second.result).toEqual({
      nonce: second.scan.nonce,
      result: 'conflict',
      id: expect.any(Number),
      conflicts: [{ kind: 1, limit: 1, count: 2 }],
    });
    const checks = await t.db
      .selectFrom('card_check')
      .select(['id', 'entrance_id', 'is_deleted'])
      .where('card_id', '=', c.cardId)
      .orderBy('id')
      .execute();
    expect(checks).toEqual([
      { id: first.result.id, entrance_id: s.gate1, is_deleted: false },
      { id: second.result.id, entrance_id: s.gate2, is_deleted: false },
    ]);
    const counter = await t.db
      .selectFrom('card_check_day_count')
      .select('used')
      .where('card_id', '=', c.cardId)
      .executeTakeFirstOrThrow();
    expect(counter.used).toBe(2);

    const again = await t.post(SYNC, { scans: [second.scan] }, south.token);
    expect(again.body.data.results).toEqual([{ ...second.result, result: 'duplicate' }]);

    // Online the card is used up for that day: the conflict does not give it a third entry.
    const online = await t.post(
      '/app-api/checker/addCheckerConsumeRecord',
      { skuId: s.skuId, cardNumber: c.cardNumber, checkTime: wire(yesterdayAt(12)) },
      s.checker.token,
    );
    expect(online.body.errcode).toBe(1_013_000_007);

    const staff = await staffSession(t, { kind: 'merchant', merchantId: s.merchantId, permissions: ['checker:read'] });
    const listed = await page(staff.token);
    expect(listed).toEqual({
      total: 1,
      list: [
        {
          id: expect.any(Number),
          kind: 1,
          limit: 1,
          count: 2,
          checkId: second.result.id,
          checkTime: wire(yesterdayAt(10)),
          checkRevoked: false,
          cardId: c.cardId,
          cardNumber: c.cardNumber,
          holderName: c.holderName,
          skuId: s.skuId,
          skuName: expect.stringMatching(/^Lake entry /),
          entranceId: s.gate2,
          entranceName: 'South gate',
          checkerId: south.id,
          checkerName: south.name,
          createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} /),
        },
      ],
    });
  });

  it('marks every scan beyond the limit within one upload, in time order', async () => {
    const s = await createSpot(t, { dailyLimit: 2 });
    const c = await card(s);
    const scans = [14, 9, 12, 16].map((h) => ({
      nonce: `g-${uniq()}`,
      cardNumber: c.cardNumber,
      skuId: s.skuId,
      checkTime: wire(yesterdayAt(h)),
    }));
    const res = await t.post(SYNC, { scans }, s.checker.token);
    expect(res.body.data.results.map((r: any) => [r.result, r.conflicts])).toEqual([
      ['conflict', [{ kind: 1, limit: 2, count: 3 }]],
      ['recorded', undefined],
      ['recorded', undefined],
      ['conflict', [{ kind: 1, limit: 2, count: 4 }]],
    ]);
  });
});

describe('capacity conflicts', () => {
  it("records scans over the spot's day and slot capacity, marked with the bound they broke", async () => {
    const s = await createSpot(t);
    const admin = await staffSession(t, { kind: 'merchant', merchantId: s.merchantId, permissions: ['checker:write'] });
    const set = await t.post(
      '/manage-api/checker/setSpotCapacity',
      { skuId: s.skuId, dailyCapacity: 3, slots: [{ startTime: '09:00', endTime: '10:00', capacity: 1 }] },
      admin.token,
    );
    expect(set.body.errcode, set.body.errmsg).toBe(0);
    const cards = await Promise.all([1, 2, 3, 4].map(() => card(s)));
    const scans = [
      [0, 9, 10],
      [1, 9, 20],
      [2, 11, 0],
      [3, 12, 0],
    ].map(([c, h, m]) => ({
      nonce: `g-${uniq()}`,
      cardNumber: cards[c].cardNumber,
      skuId: s.skuId,
      checkTime: wire(yesterdayAt(h, m)),
    }));
    const res = await t.post(SYNC, { scans }, s.checker.token);
    expect(res.body.data.results.map((r: any) => [r.result, r.conflicts])).toEqual([
      ['recorded', undefined],
      ['conflict', [{ kind: 3, limit: 1, count: 2 }]],
      ['recorded', undefined],
      ['conflict', [{ kind: 2, limit: 3, count: 4 }]],
    ]);
  });
});

describe('queryCheckConflictPage', () => {
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: PAGE,
    permission: 'checker:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ pageSize: 1.5 }), field: 'pageSize' },
      { body: () => ({ skuId: 'x' }), field: 'skuId' },
      { body: () => ({ kind: 4 }), field: 'kind' },
      { body: () => ({ startTime: 'yesterday' }), field: 'startTime' },
      { body: () => ({ endTime: '2026-02-30' }), field: 'endTime' },
      { body: () => ({ startTime: '2026-01-02', endTime: '2026-01-01' }), field: 'endTime' },
      { body: () => ({ cardNumber: 'x'.repeat(33) }), field: 'cardNumber' },
    ],
  });

  it("pages conflicts by scope: platform all, a merchant its spots', a shop its shop's, never another merchant's; filters", async () => {
    const a = await createSpot(t);
    const b = await createSpot(t);
    const inA = await twoGatesAdmit(a, yesterdayAt(9), yesterdayAt(9, 30));
    const inB = await twoGatesAdmit(b, yesterdayAt(15), yesterdayAt(15, 30));
    expect([inA.second.result.result, inB.second.result.result]).toEqual(['conflict', 'conflict']);

    const { merchant: merchantA, shop: shopA, otherShop, platform } = await scopeReaders(t, a);

    const ids = (p: { list: Array<Record<string, unknown>> }) => p.list.map((r) => r.checkId);
    expect(ids(await page(merchantA.token))).toEqual([inA.second.result.id]);
    expect(ids(await page(shopA.token))).toEqual([inA.second.result.id]);
    expect((await page(otherShop.token)).total).toBe(0);
    expect(ids(await page(merchantA.token, { skuId: b.skuId }))).toEqual([]);
    expect(ids(await page(platform.token, { skuId: b.skuId }))).toEqual([inB.second.result.id]);
    expect(ids(await page(platform.token, { cardNumber: inA.card.cardNumber }))).toEqual([inA.second.result.id]);
    expect(ids(await page(merchantA.token, { kind: 2 }))).toEqual([]);
    expect(ids(await page(merchantA.token, { kind: 1 }))).toEqual([inA.second.result.id]);
    const day = wire(yesterdayAt(0)).slice(0, 10);
    expect((await page(merchantA.token, { startTime: day, endTime: day })).total).toBe(1);
    expect((await page(merchantA.token, { startTime: `${day} 09:31:00` })).total).toBe(0);
    expect((await page(merchantA.token, { endTime: `${day} 09:29:59` })).total).toBe(0);
    const both = await page(platform.token, { startTime: `${day} 09:00:00`, endTime: `${day} 16:00:00` });
    expect(ids(both).filter((id) => id === inA.second.result.id || id === inB.second.result.id)).toEqual([
      inB.second.result.id,
      inA.second.result.id,
    ]);
  });
});
