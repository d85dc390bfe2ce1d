import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../scripts/gate/cli.js';
import { GateClient } from '../../scripts/gate/client.js';
import { scanOffline, syncQueue } from '../../scripts/gate/gate.js';
import { cardHashOf } from '../../scripts/gate/pack.js';
import { loadState, saveState, type GateState } from '../../scripts/gate/state.js';
import { checkIn, createSpot, heldCard, HOUR, type HeldCard, type Spot } from '../checker/checkin-fixtures.js';
import { createChecker, createCheckerRelation } from '../helpers/factories.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The reference offline gate (scripts/offline-gate.ts, docs/domain.md §4.1) against the service
 * listening on a port, over real HTTP: a pack, scans decided offline, an upload with a conflict, a
 * re-send answered as duplicates, a delta; and the pack's checks (digest, cut, signature).
 */

let t: TestApp;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  dir = mkdtempSync(path.join(os.tmpdir(), 'tc-gate-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A spot of daily limit 1 with a verifier that logs in by mobile and password. */
async function gateSpot(): Promise<{ spot: Spot; mobile: string; password: string }> {
  const spot = await createSpot(t, { dailyLimit: 1 });
  const v = await createChecker(t.db, { merchant_id: spot.merchantId, shop_id: spot.shopId });
  await createCheckerRelation(t.db, { checker_id: v.id, sku_id: spot.skuId });
  return { spot, mobile: v.mobile, password: v.password };
}

/** The holder's name as the pack masks it (first and last character), as a pattern. */
const maskedPattern = (name: string) =>
  `${name[0]}${'*'.repeat(name.length - 2)}${name[name.length - 1]}`.replace(/\*/g, '\\*');

const card = (s: Spot): Promise<HeldCard> =>
  heldCard(t.db, s.modelId, { active_time: new Date(Date.now() - 24 * HOUR) });

async function gate(argv: string[], fetchFn?: typeof fetch): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await run(argv, { out: (l) => lines.push(l), fetch: fetchFn });
  return { code, out: lines.join('\n') };
}

let n = 0;
const stateFile = () => path.join(dir, `gate-${++n}.json`);

describe('a gate offline and back', () => {
  it('packs, decides offline, uploads with a conflict, answers a re-send as duplicates, refreshes by delta', async () => {
    const { spot, mobile, password } = await gateSpot();
    const a = await card(spot);
    const b = await card(spot);
    // b used its one entry of the day online before the pack.
    expect((await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: b.cardNumber })).body.errcode).toBe(
      0,
    );
    const file = stateFile();

    const packed = await gate(['pack', '--url', baseUrl, '--mobile', mobile, '--password', password, '--state', file]);
    expect(packed.code, packed.out).toBe(0);
    expect(packed.out).toContain('whole pack (no-cursor): 2 cards');
    expect(packed.out).toContain(`spot ${spot.skuId} `);
    const held = loadState(file)!;
    expect(JSON.stringify(held.pack)).not.toContain(a.cardNumber); // numbers travel as keyed hashes

    // Offline: no network from here to the sync (a fetch that fails would show).
    const offline = (() => Promise.reject(new Error('offline'))) as typeof fetch;
    const scanned = await gate(
      [
        'scan',
        '--state',
        file,
        '--sku',
        String(spot.skuId),
        '--entrance',
        String(spot.gate1),
        a.cardNumber,
        'NOPE0000',
        b.cardNumber,
        a.cardNumber,
      ],
      offline,
    );
    expect(scanned.code, scanned.out).toBe(0);
    const lines = scanned.out.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^${a.cardNumber}  admit   ${maskedPattern(a.holderName)}, entry 1 of 1 today, queued gate-`),
    );
    expect(lines[1]).toBe(
      'NOPE0000  refuse  1013000001 CARD_UNKNOWN: card not found (unknown, unbound, disabled or expired)',
    );
    expect(lines[2]).toBe(`${b.cardNumber}  refuse  1013000007 DAILY_LIMIT_REACHED: daily limit 1 here, 1 used today`);
    // The gate counts its own admission: the same card again is refused offline.
    expect(lines[3]).toBe(`${a.cardNumber}  refuse  1013000007 DAILY_LIMIT_REACHED: daily limit 1 here, 1 used today`);
    expect(lines[4]).toBe('1 scans queued for upload');

    // Meanwhile another gate, online, admits a.
    const online = await checkIn(t, spot.checker.token, {
      skuId: spot.skuId,
      entranceId: spot.gate2,
      cardNumber: a.cardNumber,
    });
    expect(online.body.errcode).toBe(0);

    const beforeSync = `${file}.before-sync`;
    copyFileSync(file, beforeSync);
    const synced = await gate(['sync', '--state', file]);
    expect(synced.code, synced.out).toBe(0);
    expect(synced.out).toContain('uploaded 1 of 1 queued scans');
    const conflict = /conflict #(\d+) \(recorded; daily limit 1, count 2\)/.exec(synced.out);
    expect(conflict, synced.out).not.toBeNull();
    // The delta re-sends what changed since the pack (a, and b within the cursor's overlap).
    expect(synced.out).toMatch(/delta pack: [12] cards, 0 tombstones .*; 2 cards held/);
    const after = loadState(file)!;
    expect(after.scans.filter((s) => !s.answer)).toEqual([]);
    expect(after.pack!.cards[cardHashOf(after.pack!, a.cardNumber)].usedToday).toEqual([[spot.spuId, 2]]);

    const rows = await t.db
      .selectFrom('card_check_conflict')
      .select(['check_id', 'kind', 'limit_value', 'count_value'])
      .where('card_id', '=', a.cardId)
      .execute();
    expect(rows).toEqual([{ check_id: Number(conflict![1]), kind: 1, limit_value: 1, count_value: 2 }]);

    // The answer lost (the state of before the sync): sent again, each scan answers its first answer.
    copyFileSync(beforeSync, file);
    const resent = await gate(['sync', '--state', file]);
    expect(resent.code, resent.out).toBe(0);
    expect(resent.out).toContain(`duplicate, first answer: #${conflict![1]} with conflict (daily limit 1, count 2)`);
    expect(resent.out).toContain('delta pack:');
    expect(await t.db.selectFrom('card_check').select('id').where('card_id', '=', a.cardId).execute()).toHaveLength(2);
  });
});

describe('the upload', () => {
  async function gateWithScans(count: number): Promise<{ state: GateState; file: string; spot: Spot }> {
    const { spot, mobile, password } = await gateSpot();
    const cards = await Promise.all(Array.from({ length: count }, () => card(spot)));
    const file = stateFile();
    expect(
      (await gate(['pack', '--url', baseUrl, '--mobile', mobile, '--password', password, '--state', file])).code,
    ).toBe(0);
    const state = loadState(file)!;
    for (const c of cards)
      expect(
        scanOffline(state, {
          skuId: spot.skuId,
          entranceId: null,
          cardNumber: c.cardNumber,
          consumeNum: 1,
          at: new Date(),
        }).admit,
      ).toBe(true);
    saveState(file, state);
    return { state, file, spot };
  }

  it('sends the queue in requests of at most the batch size', async () => {
    const { state, file } = await gateWithScans(3);
    const sizes: number[] = [];
    const counting = (async (url: string, init: RequestInit) => {
      if (url.endsWith('/syncOfflineChecks')) sizes.push(JSON.parse(init.body as string).scans.length);
      return fetch(url, init);
    }) as typeof fetch;
    const r = await syncQueue(state, new GateClient(baseUrl, state.auth, counting), () => saveState(file, state), {
      batchSize: 2,
    });
    expect(sizes).toEqual([2, 1]);
    expect(r.answered.map((x) => x.answer.result)).toEqual(['recorded', 'recorded', 'recorded']);
    expect(r.unanswered).toBe(0);
  });

  it('keeps the scans of a request whose answer was cut, and a second sync answers them as duplicates', async () => {
    const { file } = await gateWithScans(2);
    const cut = (async (url: string, init: RequestInit) => {
      const res = await fetch(url, init);
      if (url.endsWith('/syncOfflineChecks')) {
        await res.arrayBuffer(); // the service stored and answered; the gate never reads it
        throw new TypeError('fetch failed: connection reset');
      }
      return res;
    }) as typeof fetch;
    const first = await gate(['sync', '--state', file], cut);
    expect(first.code).toBe(1);
    expect(first.out).toContain(
      'upload stopped: fetch failed: connection reset; 2 scans stay queued for the next sync',
    );
    const second = await gate(['sync', '--state', file]);
    expect(second.code, second.out).toBe(0);
    expect(second.out.match(/duplicate, first answer: #\d+$/gm)).toHaveLength(2);
  });

  it('refreshes an expired access token by the refresh token', async () => {
    const { state, file } = await gateWithScans(1);
    state.auth!.accessToken = 'expired-or-revoked';
    saveState(file, state);
    const r = await gate(['sync', '--state', file]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/recorded #\d+/);
    expect(loadState(file)!.auth!.accessToken).not.toBe('expired-or-revoked');
  });
});

describe('the pack is checked before it is kept', () => {
  /** A fetch that rewrites the pack's text. */
  const altering = (change: (text: string) => string) =>
    (async (url: string, init: RequestInit) => {
      const res = await fetch(url, init);
      if (!url.endsWith('/offlinePack')) return res;
      return new Response(change(await res.text()), { headers: { 'content-type': 'application/x-ndjson' } });
    }) as typeof fetch;

  it.each([
    [
      'a card line changed',
      (s: string) => s.replace('\n["c","', '\n["c","A'),
      'the digest of the card lines does not match',
    ],
    [
      'cut before the trailer',
      (s: string) => s.slice(0, s.lastIndexOf('{"type":"trailer"')),
      'the pack was cut: no trailer',
    ],
    ['its header changed', (s: string) => s.replace('"day":"', '"day":"x'), 'the signature does not verify'],
  ])('refuses a pack with %s and keeps none', async (_, change, message) => {
    const { spot, mobile, password } = await gateSpot();
    await card(spot);
    const file = stateFile();
    const r = await gate(
      ['pack', '--url', baseUrl, '--mobile', mobile, '--password', password, '--state', file],
      altering(change),
    );
    expect(r.code).toBe(1);
    expect(r.out).toContain(`refused: ${message}`);
    expect(loadState(file)).toBeNull();
  });
});
