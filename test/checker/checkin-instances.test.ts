import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { checkIn, createSpot, heldCard, type Spot } from './checkin-fixtures.js';

/**
 * Check-in on several instances sharing the database and the store (Redis when REDIS_URL is set):
 * the daily limit and nonce replay hold across them, and a nonce outlives the store (a restart).
 */

let db: TestDb;
let one: TestApp;
let two: TestApp;
let spot: Spot;

beforeAll(async () => {
  db = await openTestDatabase();
  one = await createTestApp({}, { db });
  two = await createTestApp({}, { db, store: one.store });
  spot = await createSpot(one);
});
afterAll(async () => {
  await two?.close();
  await one?.close();
  await db?.close();
});

const recordsOf = (cardId: number) =>
  one.db.selectFrom('card_check').select('id').where('card_id', '=', cardId).execute();

describe('two instances', () => {
  it('50 parallel scans of one card with a limit of 1, split over both: exactly one passes', async () => {
    const card = await heldCard(one.db, spot.modelId);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        checkIn(i % 2 ? two : one, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber }),
      ),
    );
    const codes = answers.map((a) => a.body.errcode);
    expect(codes.filter((c) => c === 0)).toHaveLength(1);
    expect(codes.filter((c) => c === 1_013_000_007)).toHaveLength(49);
    expect(await recordsOf(card.cardId)).toHaveLength(1);
  });

  it('one scan sent to both at once (same nonce) makes one record and the same answer everywhere', async () => {
    const three = await createSpot(one, { dailyLimit: 3 });
    const card = await heldCard(one.db, three.modelId);
    const body = { skuId: three.skuId, cardNumber: card.cardNumber, nonce: `both-${card.cardId}` };
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => checkIn(i % 2 ? two : one, three.checker.token, body)),
    );
    expect(answers.map((a) => a.body.errcode)).toEqual(Array(10).fill(0));
    expect(new Set(answers.map((a) => JSON.stringify(a.body.data))).size).toBe(1);
    expect(await recordsOf(card.cardId)).toHaveLength(1);
  });

  it('a nonce is remembered by the database: an instance with an empty store answers the first record', async () => {
    const card = await heldCard(one.db, spot.modelId);
    const body = { skuId: spot.skuId, cardNumber: card.cardNumber, nonce: `restart-${card.cardId}` };
    const first = await checkIn(one, spot.checker.token, body);
    expect(first.body.errcode).toBe(0);
    const fresh = await createTestApp({}, { db });
    try {
      expect((await checkIn(fresh, spot.checker.token, body)).body).toEqual(first.body);
    } finally {
      await fresh.close();
    }
    expect(await recordsOf(card.cardId)).toHaveLength(1);
  });
});
