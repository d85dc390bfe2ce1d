import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShop } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { checkIn, createSpot, heldCard, type Spot } from './checkin-fixtures.js';
import { openStream } from './admission-events.js';

/**
 * Today's admissions per scenic spot against its capacity (querySpotAdmissionToday) and their live
 * stream (admissionStream), scoped by merchant and shop, on two instances sharing the database
 * (issue 39, docs/adr/0108-admission-stream-sse-over-fetch-one-poller.md).
 */

const TODAY = '/manage-api/checker/querySpotAdmissionToday';
const STREAM = '/manage-api/checker/admissionStream';

let db: TestDb;
let one: TestApp;
let two: TestApp;
let urlOne: string;
let urlTwo: string;
/** a spot of merchant A with a daily capacity of 5 and a slot, and a spot of merchant B without one */
let a: Spot;
let b: Spot;
let merchantA: StaffSession;

beforeAll(async () => {
  db = await openTestDatabase();
  one = await createTestApp({}, { db });
  two = await createTestApp({}, { db, store: one.store });
  urlOne = await one.app.listen({ host: '127.0.0.1', port: 0 });
  urlTwo = await two.app.listen({ host: '127.0.0.1', port: 0 });
  a = await createSpot(one, { dailyLimit: 10 });
  b = await createSpot(one, { dailyLimit: 10 });
  await setCapacity(a, 5, [{ start: 0, end: 1440, capacity: 4 }]);
  merchantA = await staffSession(one, { kind: 'merchant', merchantId: a.merchantId, permissions: ['checker:read'] });
});
afterAll(async () => {
  await two?.close();
  await one?.close();
  await db?.close();
});

/** Written as the capacity operation writes it (the capacity module owns the rows; a test may set them up). */
async function setCapacity(
  spot: Spot,
  daily: number | null,
  slots: Array<{ start: number; end: number; capacity: number }>,
) {
  await one.db
    .insertInto('spot_capacity')
    .values({
      sku_id: spot.skuId,
      merchant_id: spot.merchantId,
      shop_id: spot.shopId,
      daily_capacity: daily,
      created_by: null,
      updated_by: null,
    })
    .execute();
  for (const s of slots) {
    await one.db
      .insertInto('spot_capacity_slot')
      .values({ sku_id: spot.skuId, start_minute: s.start, end_minute: s.end, capacity: s.capacity })
      .execute();
  }
}

async function admit(at: Spot, app: TestApp = one) {
  const card = await heldCard(one.db, at.modelId);
  const res = await checkIn(app, at.checker.token, { skuId: at.skuId, cardNumber: card.cardNumber });
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

async function today(who: { token: string }, body: Record<string, unknown> = {}) {
  const res = await one.post(TODAY, body, who.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data as Array<Record<string, any>>;
}

describe('querySpotAdmissionToday', () => {
  itRefusesWhatStaffOperationsRefuse(() => one, {
    path: TODAY,
    permission: 'checker:read',
    validBody: () => ({}),
    badInputs: [
      { body: () => ({ skuIds: 'x' }), field: 'skuIds' },
      { body: () => ({ skuIds: [0] }), field: 'skuIds' },
      { body: () => ({ skuIds: Array.from({ length: 501 }, (_, i) => i + 1) }), field: 'skuIds' },
    ],
  });

  it('answers per spot in scope the entries admitted today against the day and slot capacities', async () => {
    const before = (await today(merchantA)).find((s) => s.skuId === a.skuId)!;
    await admit(a);
    await admit(a);
    await admit(b);
    const mine = await today(merchantA);
    expect(mine.map((s) => s.skuId)).toEqual([a.skuId]);
    expect(mine[0]).toEqual({
      skuId: a.skuId,
      skuName: expect.stringMatching(/^Lake entry/),
      dailyCapacity: 5,
      admitted: before.admitted + 2,
      slots: [{ startTime: '00:00', endTime: '24:00', capacity: 4, admitted: before.admitted + 2 }],
    });

    const shopA = await staffSession(one, { kind: 'shop', shopId: a.shopId, permissions: ['checker:read'] });
    expect((await today(shopA)).map((s) => s.skuId)).toEqual([a.skuId]);
    const otherShop = await staffSession(one, {
      kind: 'shop',
      shopId: await createShop(one.db, { merchant_id: a.merchantId }),
      permissions: ['checker:read'],
    });
    expect(await today(otherShop)).toEqual([]);
    // Another merchant's spot named by id is not shown; the platform sees both.
    expect(await today(merchantA, { skuIds: [b.skuId] })).toEqual([]);
    const platform = await staffSession(one, { kind: 'platform', permissions: ['checker:read'] });
    const both = await today(platform, { skuIds: [a.skuId, b.skuId] });
    expect(both.map((s) => [s.skuId, s.dailyCapacity, s.slots.length])).toEqual([
      [a.skuId, 5, 1],
      [b.skuId, null, 0],
    ]);
    expect(both[1].admitted).toBeGreaterThanOrEqual(1);
  });

  it('shows a spot with a capacity and nobody admitted yet, and leaves out one with neither', async () => {
    const quiet = await createSpot(one, { merchantId: a.merchantId });
    const empty = await createSpot(one, { merchantId: a.merchantId });
    await setCapacity(quiet, 100, []);
    const rows = await today(merchantA, { skuIds: [quiet.skuId, empty.skuId] });
    expect(rows).toEqual([
      { skuId: quiet.skuId, skuName: expect.any(String), dailyCapacity: 100, admitted: 0, slots: [] },
    ]);
  });
});

describe('admissionStream', () => {
  itRefusesWhatStaffOperationsRefuse(() => one, {
    path: STREAM,
    method: 'GET',
    permission: 'checker:read',
    validBody: () => ({}),
  });

  it('refuses bad skuIds with 400 naming the field, before anything is streamed', async () => {
    for (const q of ['abc', '1,,2', '0', '-3']) {
      const res = await one.call('GET', `${STREAM}?skuIds=${q}`, { token: merchantA.token });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.errcode, q).toBe(400);
      expect(res.body.errmsg).toContain('skuIds');
    }
  });

  it("sends a snapshot of the spots in scope, then an event when a spot's figures change, never another merchant's spot", async () => {
    const stream = await openStream(urlOne, merchantA.token);
    try {
      expect(stream.status).toBe(200);
      expect(stream.contentType).toBe('text/event-stream; charset=utf-8');
      const snapshot = await stream.next();
      expect(snapshot.name).toBe('snapshot');
      expect(snapshot.data.at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const spots = snapshot.data.spots as Array<Record<string, any>>;
      expect(spots.every((s) => s.skuId !== b.skuId)).toBe(true);
      const spotA = spots.find((s) => s.skuId === a.skuId)!;
      expect(spotA).toMatchObject({ dailyCapacity: 5, slots: [expect.objectContaining({ capacity: 4 })] });
      expect(spotA.minutes.reduce((n: number, m: { admitted: number }) => n + m.admitted, 0)).toBe(spotA.admitted);

      await admit(b);
      await admit(a);
      const change = await stream.next(
        (e) => e.name === 'admission' && e.data.skuId === a.skuId && e.data.admitted === spotA.admitted + 1,
      );
      expect(change.data).toEqual({
        at: expect.any(String),
        skuId: a.skuId,
        skuName: spotA.skuName,
        dailyCapacity: 5,
        admitted: spotA.admitted + 1,
        minutes: expect.arrayContaining([{ minute: expect.stringMatching(/:00$/), admitted: expect.any(Number) }]),
      });
      expect(stream.seen.some((e) => e.name === 'admission' && e.data.skuId === b.skuId)).toBe(false);
    } finally {
      stream.close();
    }
  });

  it('shows on one instance a check-in made on the other', async () => {
    const platform = await staffSession(one, { kind: 'platform', permissions: ['checker:read'] });
    const stream = await openStream(urlTwo, platform.token, `?skuIds=${b.skuId}`);
    try {
      const snapshot = await stream.next();
      const before = snapshot.data.spots.find((s: { skuId: number }) => s.skuId === b.skuId)?.admitted ?? 0;
      expect(snapshot.data.spots.every((s: { skuId: number }) => s.skuId === b.skuId)).toBe(true);
      await admit(b, one);
      const change = await stream.next((e) => e.name === 'admission' && e.data.admitted === before + 1);
      expect(change.data.skuId).toBe(b.skuId);
      expect(change.data.dailyCapacity).toBeNull();
    } finally {
      stream.close();
    }
  });

  it('refuses a stream beyond ADMISSION_STREAMS_MAX with 429, takes one again when a place frees, and ends streams when the app closes', async () => {
    const small = await createTestApp({ ADMISSION_STREAMS_MAX: '1' }, { db, store: one.store });
    let closed = false;
    try {
      const url = await small.app.listen({ host: '127.0.0.1', port: 0 });
      const first = await openStream(url, merchantA.token);
      expect((await first.next()).name).toBe('snapshot');
      const refused = await small.call('GET', STREAM, { token: merchantA.token });
      expect(refused.body).toEqual({
        errcode: 429,
        errmsg: 'this instance already serves 1 admission streams (ADMISSION_STREAMS_MAX): try again later',
      });
      first.close();
      let again = await openStream(url, merchantA.token);
      for (let i = 0; again.status === 200 && again.contentType.includes('json') && i < 20; i++) {
        await new Promise((r) => setTimeout(r, 100)); // the server has yet to see the first one go
        again = await openStream(url, merchantA.token);
      }
      expect((await again.next()).name).toBe('snapshot');
      await small.close();
      closed = true;
      await expect(again.next(() => false, 3_000)).rejects.toThrow(/the stream ended/);
    } finally {
      if (!closed) await small.close();
    }
  });
});
