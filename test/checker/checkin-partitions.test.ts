import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureMonthlyPartitions, monthPartitions } from '../../src/platform/db/partitions.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { checkIn, createSpot, heldCard, verifierAt, type Spot } from './checkin-fixtures.js';

/**
 * Check-ins and refusals on the partitioned history tables (migration 0032): a scan in a month whose
 * partition was never made still passes (the default partition takes it) and keeps its nonce when
 * its month is made later.
 */

let testDb: TestDb;
let t: TestApp;
let spot: Spot;

const monthKey = (d: Date, ahead = 0) => {
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + ahead, 1));
  return `${m.getUTCFullYear()}${String(m.getUTCMonth() + 1).padStart(2, '0')}`;
};

beforeAll(async () => {
  // The last month ahead is missing when the app starts (as on a database migrated months ago).
  testDb = await openTestDatabase();
  for (const table of ['card_check', 'operate_log'])
    await sql`drop table if exists ${sql.table(`${table}_p${monthKey(new Date(), 3)}`)}`.execute(testDb.db);
  t = await createTestApp({}, { db: testDb });
  spot = await createSpot(t, { dailyLimit: 2 });
});
afterAll(async () => {
  await t?.close();
  await testDb?.close();
});
afterEach(() => vi.useRealTimers());

const CHECKS = { table: 'card_check', column: 'check_time' };

async function homeOf(checkId: number): Promise<string> {
  const r = await sql<{
    home: string;
  }>`select tableoid::regclass::text as home from card_check where id = ${checkId}`.execute(t.db);
  return r.rows[0].home;
}

/** 00:00:00 UTC of the 1st of the first month after the ones the partitions already cover. */
async function firstUncoveredMonth(): Promise<Date> {
  const months = await monthPartitions(t.db, 'card_check');
  const last = months[months.length - 1];
  return new Date(Date.UTC(Number(last.slice(0, 4)), Number(last.slice(4)), 1));
}

describe('check-in on the partitioned records', () => {
  it('made the partitions of the current month and the months ahead when the app started', async () => {
    const now = new Date();
    expect((await t.call('GET', '/healthz')).status).toBe(200); // served after the start jobs
    for (const table of ['card_check', 'card_check_fail', 'operate_log', 'login_log']) {
      const months = await monthPartitions(t.db, table);
      expect(months).toEqual(expect.arrayContaining([0, 1, 2, 3].map((ahead) => monthKey(now, ahead))));
    }
  });

  it('passes a scan at 00:00 of the 1st of a month without a partition, and a re-send still finds it once the month is made', async () => {
    const midnight = await firstUncoveredMonth();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(midnight);
    const verifier = await verifierAt(t, { merchantId: spot.merchantId, shopId: spot.shopId, skuId: spot.skuId });
    const card = await heldCard(t.db, spot.modelId);
    const body = { skuId: spot.skuId, cardNumber: card.cardNumber, nonce: `midnight-${card.cardId}` };

    const first = await checkIn(t, verifier.token, body);
    expect(first.body.errcode, first.body.errmsg).toBe(0);
    const checkId = Number(first.body.data.id);
    expect(await homeOf(checkId)).toBe('card_check_default');
    const stored = await t.db
      .selectFrom('card_check')
      .select('check_time')
      .where('id', '=', checkId)
      .executeTakeFirst();
    expect(stored?.check_time).toEqual(midnight);

    // A refusal in that month too (a disabled card), to the failed-scan log's default partition.
    const disabled = await heldCard(t.db, spot.modelId, { status: 3 });
    const refusalBody = { skuId: spot.skuId, cardNumber: disabled.cardNumber, nonce: `refused-${disabled.cardId}` };
    const refused = await checkIn(t, verifier.token, refusalBody);
    expect(refused.body.errcode).not.toBe(0);

    const made = await ensureMonthlyPartitions(t.db, { ...CHECKS, monthsAhead: 0, now: midnight });
    expect(made).toHaveLength(1);
    expect(await homeOf(checkId)).toBe(made[0]);
    await ensureMonthlyPartitions(t.db, {
      table: 'card_check_fail',
      column: 'created_at',
      monthsAhead: 0,
      now: midnight,
    });

    const again = await checkIn(t, verifier.token, body);
    expect(again.body).toEqual(first.body);
    expect(await t.db.selectFrom('card_check').select('id').where('card_id', '=', card.cardId).execute()).toHaveLength(
      1,
    );
    const refusedAgain = await checkIn(t, verifier.token, refusalBody);
    expect(refusedAgain.body).toEqual(refused.body);
    const fails = await t.db
      .selectFrom('card_check_fail')
      .select('nonce')
      .where('nonce', '=', refusalBody.nonce)
      .execute();
    expect(fails).toHaveLength(1);
  });

  it('keeps one record per nonce when the same scan is sent many times at once', async () => {
    const verifier = await verifierAt(t, { merchantId: spot.merchantId, shopId: spot.shopId, skuId: spot.skuId });
    const card = await heldCard(t.db, spot.modelId);
    const body = { skuId: spot.skuId, cardNumber: card.cardNumber, nonce: `burst-${card.cardId}` };
    const answers = await Promise.all(Array.from({ length: 8 }, () => checkIn(t, verifier.token, body)));
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    expect(answers[0].body.errcode).toBe(0);
    const nonces = await t.db.selectFrom('card_check_nonce').selectAll().where('nonce', '=', body.nonce).execute();
    expect(nonces).toEqual([
      {
        checker_id: verifier.id,
        nonce: body.nonce,
        check_id: Number(answers[0].body.data.id),
        check_time: expect.any(Date),
      },
    ]);
  });
});
