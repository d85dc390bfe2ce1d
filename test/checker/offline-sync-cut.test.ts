import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createSpot, HOUR, offlineCard, wire, type Spot } from './checkin-fixtures.js';

/**
 * syncOfflineChecks cut half-way (docs/domain.md §4.1): the gate's connection drops while the service is
 * storing the scans; the gate sends the whole request again at once. Nothing is lost and nothing is
 * stored twice: every scan ends up with one check, answered as recorded or as a duplicate of it.
 */

const SYNC = '/app-api/checker/syncOfflineChecks';
const SCANS = 150;

let t: TestApp;
let spot: Spot;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  spot = await createSpot(t, { dailyLimit: 100 });
  port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(() => t?.close());

const storedOf = async (nonces: string[]) =>
  new Map(
    (
      await t.db
        .selectFrom('card_check')
        .select(['id', 'nonce'])
        .where('checker_id', '=', spot.checker.id)
        .where('nonce', 'in', nonces)
        .execute()
    ).map((r) => [r.nonce!, r.id]),
  );

it('a request cut half-way and sent again: every scan stored once, answered by what was stored', async () => {
  const cards = await Promise.all(Array.from({ length: 2 }, () => offlineCard(t.db, spot.modelId)));
  const from = new Date(Date.now() - 6 * HOUR);
  const scans = Array.from({ length: SCANS }, (_, i) => ({
    nonce: `cut-${spot.checker.id}-${i}`,
    cardNumber: cards[i % cards.length].cardNumber,
    skuId: spot.skuId,
    entranceId: spot.gate1,
    checkTime: wire(new Date(from.getTime() + i * 60_000)),
  }));
  const nonces = scans.map((s) => s.nonce);
  const payload = JSON.stringify({ scans });

  // The first send: its connection is destroyed once some of its scans are stored.
  const cut = new Promise<'cut' | 'answered'>((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: SYNC,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          authorization: `Bearer ${spot.checker.token}`,
        },
      },
      (res) => {
        res.resume();
        resolve('answered');
      },
    );
    req.on('error', () => resolve('cut'));
    req.end(payload);
    const watch = async () => {
      while ((await storedOf(nonces)).size < 20) await new Promise((r) => setTimeout(r, 20));
      req.destroy();
    };
    void watch();
  });
  expect(await cut).toBe('cut');
  const storedWhenCut = (await storedOf(nonces)).size;
  expect(storedWhenCut).toBeGreaterThanOrEqual(20);
  expect(storedWhenCut).toBeLessThan(SCANS);

  // Sent again at once, while the service may still be storing the first send's scans.
  const again = await t.post(SYNC, { scans }, spot.checker.token);
  expect(again.body.errcode, again.body.errmsg).toBe(0);
  const results = again.body.data.results as Array<{ nonce: string; result: string; id: number }>;
  expect(results.map((r) => r.nonce)).toEqual(nonces);
  // What the cut send stored answers as duplicates; the rest is recorded by whichever send got to it first
  // (the service goes on storing a cut request's scans: each one is stored before any answer).
  expect(results.every((r) => r.result === 'duplicate' || r.result === 'recorded')).toBe(true);
  expect(results.filter((r) => r.result === 'duplicate').length).toBeGreaterThanOrEqual(storedWhenCut);

  // The second send covered every scan, so all are stored now, each once, under the ids it answered.
  const stored = await storedOf(nonces);
  expect(stored.size).toBe(SCANS);
  const count = await t.db
    .selectFrom('card_check')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where('checker_id', '=', spot.checker.id)
    .executeTakeFirstOrThrow();
  expect(Number(count.n)).toBe(SCANS);
  expect(results.map((r) => r.id)).toEqual(nonces.map((n) => stored.get(n)));
  // A third send (by when the cut one has long caught up) answers every scan as a duplicate of the same check.
  const third = await t.post(SYNC, { scans }, spot.checker.token);
  expect(third.body.data.results).toEqual(results.map((r) => ({ nonce: r.nonce, result: 'duplicate', id: r.id })));
});
