import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { loadMemberAccount } from '../../src/modules/member/member.repository.js';
import { createCard, createCardModel, createMember, uniq } from '../helpers/factories.js';
import { issueFor, staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createSpot, HOUR, offlineCard, verifierAt, wire, yesterdayAt, type Spot } from './checkin-fixtures.js';

/** syncOfflineChecks (docs/domain.md §4.1, issue 39): recorded, refused, duplicate, time order, input. */

const SYNC = '/app-api/checker/syncOfflineChecks';

let t: TestApp;
let spot: Spot;

beforeAll(async () => {
  t = await createTestApp();
  spot = await createSpot(t);
});
afterAll(() => t?.close());

const nonce = () => `off-${uniq()}`;
const card = (s: Spot = spot, over: Parameters<typeof offlineCard>[2] = {}) => offlineCard(t.db, s.modelId, over);

type ScanBody = {
  nonce: string;
  cardNumber: string;
  skuId: number;
  entranceId?: number | null;
  checkTime: string;
  consumeNum?: number;
};
const scanOf = (s: Spot, cardNumber: string, at: Date, more: Partial<ScanBody> = {}): ScanBody => ({
  nonce: nonce(),
  cardNumber,
  skuId: s.skuId,
  entranceId: s.gate1,
  checkTime: wire(at),
  ...more,
});

async function sync(token: string, scans: ScanBody[]) {
  const res = await t.post(SYNC, { scans }, token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data.results as Array<Record<string, unknown>>;
}

const checksOf = (cardId: number) =>
  t.db.selectFrom('card_check').selectAll().where('card_id', '=', cardId).orderBy('id').execute();

describe('a scan recorded', () => {
  it('writes the check at its own time with its nonce and gate, and logs the operation under the check', async () => {
    const c = await card();
    const at = yesterdayAt(10, 15);
    const scan = scanOf(spot, c.cardNumber, at, { entranceId: spot.gate2 });
    const [result] = await sync(spot.checker.token, [scan]);
    expect(result).toEqual({ nonce: scan.nonce, result: 'recorded', id: expect.any(Number) });
    const rows = await checksOf(c.cardId);
    expect(rows).toEqual([
      expect.objectContaining({
        id: result.id,
        sku_id: spot.skuId,
        entrance_id: spot.gate2,
        checker_id: spot.checker.id,
        tourist_name: c.holderName,
        nonce: scan.nonce,
        consume_num: 1,
        check_type: 1,
        check_time: at,
      }),
    ]);
    const log = await t.db
      .selectFrom('operate_log')
      .select(['biz_id', 'module', 'action', 'success', 'account_id'])
      .where('path', '=', SYNC)
      .where('biz_id', '=', String(result.id))
      .execute();
    expect(log).toEqual([
      {
        biz_id: String(result.id),
        module: '核销记录',
        action: '离线核销上传',
        success: true,
        account_id: spot.checker.id,
      },
    ]);
  });
});

it("hands its connections back committing synchronously (its own scans' commits wait for one flush at the end)", async () => {
  const c = await card();
  expect((await sync(spot.checker.token, [scanOf(spot, c.cardNumber, yesterdayAt(7))]))[0].result).toBe('recorded');
  const shown = await Promise.all(
    Array.from({ length: 3 }, () => sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(t.db)),
  );
  expect(shown.map((r) => r.rows[0].synchronous_commit)).toEqual(['on', 'on', 'on']);
});

describe('refusals', () => {
  it('answers each refusal a gate can meet with its own code, per scan, and logs each with its nonce', async () => {
    const other = await createSpot(t);
    const ago = (h: number) => new Date(Date.now() - h * HOUR);
    const disabled = await card(spot, { status: 3 });
    const expired = await card(spot, { expire_time: ago(30) });
    const notYet = await card(spot, { active_time: ago(2) });
    const unbound = await createCard(t.db, { card_model_id: spot.modelId, active_time: ago(72) });
    const unboundNumber = (
      await t.db.selectFrom('card').select('card_number').where('id', '=', unbound).executeTakeFirstOrThrow()
    ).card_number;
    const foreignModel = await card({ ...spot, modelId: await createCardModel(t.db) });
    const good = await card();
    const cases: Array<[ScanBody, number]> = [
      [scanOf(spot, 'NO-SUCH-CARD', ago(5)), 1_013_000_001],
      [scanOf(spot, unboundNumber, ago(5)), 1_013_000_002],
      [scanOf(spot, disabled.cardNumber, ago(5)), 1_013_000_003],
      [scanOf(spot, expired.cardNumber, ago(5)), 1_013_000_004],
      [scanOf(spot, foreignModel.cardNumber, ago(5)), 1_013_000_005],
      [scanOf(other, good.cardNumber, ago(5), { entranceId: other.gate1 }), 1_013_000_006],
      [scanOf(spot, good.cardNumber, ago(5), { entranceId: other.gate1 }), 1_013_000_006],
      [scanOf(spot, notYet.cardNumber, ago(3)), 1_013_000_010],
      [scanOf(spot, good.cardNumber, ago(73)), 1_013_000_011],
      [scanOf(spot, good.cardNumber, new Date(Date.now() + 10 * 60_000)), 1_013_000_012],
    ];
    const results = await sync(
      spot.checker.token,
      cases.map(([s]) => s),
    );
    expect(results.map((r) => [r.nonce, r.result, r.errcode])).toEqual(
      cases.map(([s, code]) => [s.nonce, 'refused', code]),
    );
    for (const r of results) expect(r.errmsg).toEqual(expect.any(String));
    expect(await checksOf(good.cardId)).toHaveLength(0);
    const logged = await t.db
      .selectFrom('card_check_fail')
      .select(['nonce', 'errcode', 'card_number'])
      .where(
        'nonce',
        'in',
        cases.map(([s]) => s.nonce),
      )
      .execute();
    expect(new Map(logged.map((f) => [f.nonce, f.errcode]))).toEqual(
      new Map(cases.map(([s, code]) => [s.nonce, code])),
    );
  });

  it('refuses a nonce used before for another scan with 1_013_000_013, in the same request too', async () => {
    const a = await card();
    const b = await card();
    const first = scanOf(spot, a.cardNumber, yesterdayAt(9));
    await sync(spot.checker.token, [first]);
    const reused = { ...scanOf(spot, b.cardNumber, yesterdayAt(9, 5)), nonce: first.nonce };
    const twice = scanOf(spot, b.cardNumber, yesterdayAt(9, 10));
    const twiceOther = { ...scanOf(spot, a.cardNumber, yesterdayAt(9, 11)), nonce: twice.nonce };
    const results = await sync(spot.checker.token, [reused, twice, twiceOther]);
    expect(results).toEqual([
      { nonce: first.nonce, result: 'refused', errcode: 1_013_000_013, errmsg: expect.any(String) },
      { nonce: twice.nonce, result: 'recorded', id: expect.any(Number) },
      { nonce: twice.nonce, result: 'refused', errcode: 1_013_000_013, errmsg: expect.any(String) },
    ]);
    expect(await checksOf(b.cardId)).toHaveLength(1);
  });
});

describe('duplicates', () => {
  it('answers a re-sent batch with the first answers, as duplicates, and writes nothing twice', async () => {
    const three = await createSpot(t, { dailyLimit: 3 });
    const a = await card(three);
    const b = await card(three);
    const batch = [
      scanOf(three, a.cardNumber, yesterdayAt(11)),
      scanOf(three, 'UNKNOWN-' + uniq().slice(-8), yesterdayAt(11, 1)),
      scanOf(three, b.cardNumber, yesterdayAt(11, 2), { consumeNum: 2 }),
    ];
    const first = await sync(three.checker.token, batch);
    expect(first.map((r) => r.result)).toEqual(['recorded', 'refused', 'recorded']);
    const again = await sync(three.checker.token, batch);
    expect(again).toEqual(first.map((r) => ({ ...r, result: 'duplicate' })));
    expect(await checksOf(a.cardId)).toHaveLength(1);
    expect(await checksOf(b.cardId)).toHaveLength(1);
    const fails = await t.db.selectFrom('card_check_fail').select('id').where('nonce', '=', batch[1].nonce).execute();
    expect(fails).toHaveLength(1);
    // Online, the same nonce answers the same record.
    const online = await t.post('/app-api/checker/addCheckerConsumeRecord', batch[0], three.checker.token);
    expect(online.body.data.id).toBe(first[0].id);
  });

  it('answers the same nonce twice in one request: the second a duplicate of the first, whatever their times', async () => {
    const c = await card();
    const scan = scanOf(spot, c.cardNumber, yesterdayAt(14));
    const resent = { ...scan, checkTime: wire(yesterdayAt(13)) };
    const results = await sync(spot.checker.token, [scan, resent]);
    expect(results).toEqual([
      { nonce: scan.nonce, result: 'recorded', id: expect.any(Number) },
      { nonce: scan.nonce, result: 'duplicate', id: results[0].id },
    ]);
    expect(await checksOf(c.cardId)).toHaveLength(1);
  });

  it("keeps nonces per verifier: another verifier's scan with the same nonce is its own", async () => {
    const colleague = await verifierAt(t, { merchantId: spot.merchantId, shopId: spot.shopId, skuId: spot.skuId });
    const a = await card();
    const b = await card();
    const mine = scanOf(spot, a.cardNumber, yesterdayAt(8));
    const theirs = { ...scanOf(spot, b.cardNumber, yesterdayAt(8)), nonce: mine.nonce };
    expect((await sync(spot.checker.token, [mine]))[0].result).toBe('recorded');
    expect((await sync(colleague.token, [theirs]))[0].result).toBe('recorded');
  });
});

describe('time order', () => {
  it('judges the scans of a request in the order of their times, answering in the order of the request', async () => {
    // A card that expired yesterday at noon: the morning scan passes and the afternoon one does not,
    // the afternoon one first in the request.
    const expiring = await card(spot, { expire_time: yesterdayAt(12) });
    const late = scanOf(spot, expiring.cardNumber, yesterdayAt(16));
    const early = scanOf(spot, expiring.cardNumber, yesterdayAt(8));
    expect((await sync(spot.checker.token, [late, early])).map((r) => [r.nonce, r.result, r.errcode])).toEqual([
      [late.nonce, 'refused', 1_013_000_004],
      [early.nonce, 'recorded', undefined],
    ]);
    expect((await checksOf(expiring.cardId)).map((k) => k.check_time)).toEqual([yesterdayAt(8)]);

    // Three scans of a card allowing three a day, sent 15:00, 09:00, 12:00: written 09:00, 12:00, 15:00.
    const three = await createSpot(t, { dailyLimit: 3 });
    const c = await card(three);
    const scans = [15, 9, 12].map((h) => scanOf(three, c.cardNumber, yesterdayAt(h)));
    const results = await sync(three.checker.token, scans);
    expect(results.map((r) => [r.nonce, r.result])).toEqual(scans.map((s) => [s.nonce, 'recorded']));
    const [at15, at9, at12] = results.map((r) => r.id as number);
    expect(at9 < at12 && at12 < at15).toBe(true);
    expect((await checksOf(c.cardId)).map((k) => [k.id, k.check_time, k.checks_left])).toEqual([
      [at9, yesterdayAt(9), 2],
      [at12, yesterdayAt(12), 1],
      [at15, yesterdayAt(15), 0],
    ]);
  });
});

describe('input and access', () => {
  const one = () => [scanOf(spot, '8600001', yesterdayAt(10))];
  const bad: Array<[string, () => unknown, string | RegExp]> = [
    ['no scans', () => ({}), 'scans'],
    ['an empty list', () => ({ scans: [] }), 'scans'],
    [
      '501 scans',
      () => ({ scans: Array.from({ length: 501 }, (_, i) => ({ ...one()[0], nonce: `n-${i}` })) }),
      'scans',
    ],
    ['a scan without a nonce', () => ({ scans: [{ ...one()[0], nonce: undefined }] }), 'nonce'],
    ['a scan without a card number', () => ({ scans: [{ ...one()[0], cardNumber: '' }] }), 'cardNumber'],
    ['a scan without a time', () => ({ scans: [{ ...one()[0], checkTime: undefined }] }), 'checkTime'],
    [
      'a time that is no date',
      () => ({ scans: [one()[0], { ...one()[0], checkTime: '2026-02-30 10:00:00' }] }),
      'scans[1].checkTime',
    ],
    ['a skuId of 0', () => ({ scans: [{ ...one()[0], skuId: 0 }] }), 'skuId'],
    ['consumeNum 101', () => ({ scans: [{ ...one()[0], consumeNum: 101 }] }), 'consumeNum'],
  ];
  for (const [name, body, field] of bad) {
    it(`refuses ${name} with 400 naming the field, storing nothing`, async () => {
      const res = await t.post(SYNC, body(), spot.checker.token);
      expect(res.body.errcode, JSON.stringify(res.body)).toBe(400);
      if (typeof field === 'string') expect(res.body.errmsg).toContain(field);
      else expect(res.body.errmsg).toMatch(field);
    });
  }

  it('stores nothing of a request refused for one bad scan', async () => {
    const c = await card();
    const good = scanOf(spot, c.cardNumber, yesterdayAt(10));
    const res = await t.post(
      SYNC,
      { scans: [good, { ...good, nonce: nonce(), checkTime: '2026-13-01' }] },
      spot.checker.token,
    );
    expect(res.body.errcode).toBe(400);
    expect(await checksOf(c.cardId)).toHaveLength(0);
  });

  it('takes 500 scans in one request', async () => {
    const busy = await createSpot(t, { dailyLimit: 100 });
    const cards = await Promise.all(Array.from({ length: 5 }, () => card(busy)));
    const scans = Array.from({ length: 500 }, (_, i) =>
      scanOf(busy, cards[i % 5].cardNumber, yesterdayAt(6, 0), {
        checkTime: wire(new Date(yesterdayAt(6).getTime() + i * 60_000)),
      }),
    );
    const results = await sync(busy.checker.token, scans);
    expect(results).toHaveLength(500);
    expect(results.every((r, i) => r.result === 'recorded' && r.nonce === scans[i].nonce)).toBe(true);
    expect(await checksOf(cards[0].cardId)).toHaveLength(100);
  });

  it('refuses a call without a token, with a staff token or a member token, with 401', async () => {
    const body = { scans: one() };
    expect((await t.post(SYNC, body)).body.errcode).toBe(401);
    const staff = await staffSession(t, { kind: 'platform', permissions: ['*'] });
    expect((await t.post(SYNC, body, staff.token)).body.errcode).toBe(401);
    const member = await loadMemberAccount(t.db, await createMember(t.db));
    const issued = await issueFor(t, member!, 'mp');
    expect((await t.post(SYNC, body, issued.accessToken)).body.errcode).toBe(401);
  });
});
