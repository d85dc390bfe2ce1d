import { createHmac, createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endBinding, insertBinding, setCardStatus } from '../../src/modules/card/card.repository.js';
import { loadCheckerAccount } from '../../src/modules/checker/checker-login.repository.js';
import { createCard, createCardModel, createCardModelRule } from '../helpers/factories.js';
import { createOfflinePackService } from '../../src/modules/checker/offline-pack.service.js';
import { createPackKeySource } from '../../src/modules/checker/offline-pack-key.js';
import type { AuthedContext } from '../../src/platform/http/context.js';
import { issueFor, staffSession } from '../helpers/staff.js';
import { createTestApp, type CallResult, type TestApp } from '../helpers/test-app.js';
import { checkIn, createSpot, heldCard, HOUR, type HeldCard, type Spot } from './checkin-fixtures.js';

/** offlinePack and offlinePackKey (docs/domain.md §4.1, docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md). */

const PACK = '/app-api/checker/offlinePack';
const KEY = '/app-api/checker/offlinePackKey';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

interface Header {
  type: 'header';
  keyId: string;
  checkerId: number;
  madeAt: number;
  expiresAt: number;
  full: boolean;
  reason: string | null;
  cursor: string;
  day: string;
  hash: { key: string; bytes: number };
  spots: Array<{ skuId: number; resourceId: number; allGates: boolean; gates: Array<{ id: number; name: string }> }>;
  rules: Array<{ modelId: number; resourceId: number; dailyLimit: number }>;
}
type CardLine = ['c', string, string | null, number, number, number | null, Array<[number, number]>];
interface Pack {
  text: string;
  lines: string[];
  header: Header;
  cards: Map<string, CardLine>;
  tombstones: string[];
  trailer: { cards: number; tombstones: number; digest: string; signature: string };
}

function parsePack(text: string): Pack {
  const lines = text.split('\n');
  expect(lines.pop()).toBe('');
  const header = JSON.parse(lines[0]) as Header;
  const trailer = JSON.parse(lines[lines.length - 1]);
  const cards = new Map<string, CardLine>();
  const tombstones: string[] = [];
  for (const l of lines.slice(1, -1)) {
    const v = JSON.parse(l);
    if (v[0] === 'c') cards.set(v[1], v);
    else tombstones.push(v[1]);
  }
  return { text, lines, header, cards, tombstones, trailer };
}

async function fetchPack(token: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await t.call('POST', PACK, { body, token, headers });
  return res;
}

async function packOf(token: string, since?: string): Promise<Pack> {
  const res = await fetchPack(token, since ? { since } : {});
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
  return parsePack(res.raw.payload);
}

const hashOf = (p: Pack, cardNumber: string) =>
  createHmac('sha256', Buffer.from(p.header.hash.key, 'base64url'))
    .update(cardNumber)
    .digest()
    .subarray(0, 16)
    .toString('base64url');

/** What a gate does: the digest of the card lines, the signature over header line + digest. */
function verifies(p: Pack, publicKeyRaw: string): boolean {
  const body = p.lines.slice(1, -1).map((l) => `${l}\n`);
  const digest = createHash('sha256').update(body.join('')).digest();
  if (digest.toString('base64url') !== p.trailer.digest) return false;
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyRaw, 'base64').toString('base64url') },
    format: 'jwk',
  });
  return verify(
    null,
    Buffer.concat([Buffer.from(p.lines[0]), digest]),
    key,
    Buffer.from(p.trailer.signature, 'base64url'),
  );
}

/** Fixture rows last changed an hour ago, outside a delta's overlap with its cursor. */
async function age(cardIds: number[]) {
  const anHourAgo = new Date(Date.now() - HOUR);
  await t.db.updateTable('card').set({ updated_at: anHourAgo }).where('id', 'in', cardIds).execute();
  await t.db.updateTable('card_binding').set({ updated_at: anHourAgo }).where('card_id', 'in', cardIds).execute();
}

describe('offlinePackKey', () => {
  it('answers the same Ed25519 key on every call, raw and as PEM, with its id', async () => {
    const spot = await createSpot(t);
    const a = await t.post(KEY, {}, spot.checker.token);
    expect(a.body.errcode, a.body.errmsg).toBe(0);
    expect(a.body.data).toEqual({
      keyId: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
      algorithm: 'Ed25519',
      publicKey: expect.any(String),
      publicKeyPem: expect.stringContaining('BEGIN PUBLIC KEY'),
    });
    expect(Buffer.from(a.body.data.publicKey, 'base64')).toHaveLength(32);
    const fromPem = createPublicKey(a.body.data.publicKeyPem).export({ format: 'jwk' });
    expect(Buffer.from(fromPem.x!, 'base64url').toString('base64')).toBe(a.body.data.publicKey);
    const b = await t.post(KEY, {}, spot.checker.token);
    expect(b.body.data).toEqual(a.body.data);
    const stored = await t.db.selectFrom('offline_pack_key').selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(stored[0].key_id).toBe(a.body.data.keyId);
  });
});

describe('a configured key', () => {
  it('signs with OFFLINE_PACK_SIGNING_KEY (PEM or base64 DER) and refuses to start with a bad one', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const der = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('base64');
    expect(loadConfig({ OFFLINE_PACK_SIGNING_KEY: der }).offlinePack.signingKey).toBe(der);
    expect(() => loadConfig({ OFFLINE_PACK_SIGNING_KEY: 'not a key' })).toThrow(/OFFLINE_PACK_SIGNING_KEY/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' });
    expect(() => loadConfig({ OFFLINE_PACK_SIGNING_KEY: rsa.toString() })).toThrow(/OFFLINE_PACK_SIGNING_KEY/);
    const own = await createTestApp({ OFFLINE_PACK_SIGNING_KEY: pem });
    try {
      const spot = await createSpot(own);
      const key = await own.post(KEY, {}, spot.checker.token);
      expect(key.body.data.publicKey).toBe(raw);
      const res = await own.call('POST', PACK, { body: {}, token: spot.checker.token });
      const p = parsePack(res.raw.payload);
      expect(p.header.keyId).toBe(key.body.data.keyId);
      expect(verifies(p, raw)).toBe(true);
      expect(await own.db.selectFrom('offline_pack_key').selectAll().execute()).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('a whole pack', () => {
  let spot: Spot;
  let card: HeldCard;
  let pack: Pack;
  let publicKey: string;

  beforeAll(async () => {
    spot = await createSpot(t, { dailyLimit: 3 });
    card = await heldCard(t.db, spot.modelId);
    publicKey = (await t.post(KEY, {}, spot.checker.token)).body.data.publicKey;
    pack = await packOf(spot.checker.token);
  });

  it('is signed: it verifies with the public key, and fails on a changed line', () => {
    expect(pack.header).toMatchObject({ type: 'header', full: true, reason: 'no-cursor', checkerId: spot.checker.id });
    expect(pack.trailer).toMatchObject({ cards: pack.cards.size, tombstones: 0 });
    expect(verifies(pack, publicKey)).toBe(true);
    const line = pack.lines[1];
    const changed = { ...pack, lines: [...pack.lines] };
    changed.lines[1] = line.replace(/,(\d+),/, (_m, n: string) => `,${Number(n) + 1},`);
    expect(changed.lines[1]).not.toBe(line);
    expect(verifies(changed, publicKey)).toBe(false);
    const otherHeader = { ...pack, lines: [...pack.lines] };
    otherHeader.lines[0] = pack.lines[0].replace('"full":true', '"full":false');
    expect(verifies(otherHeader, publicKey)).toBe(false);
  });

  it("carries a known card under its number's keyed hash, with the masked holder, model and validity", async () => {
    const line = pack.cards.get(hashOf(pack, card.cardNumber));
    expect(line).toBeDefined();
    const row = await t.db
      .selectFrom('card')
      .select(['active_time', 'expire_time'])
      .where('id', '=', card.cardId)
      .executeTakeFirstOrThrow();
    const name = [...card.holderName];
    expect(line).toEqual([
      'c',
      hashOf(pack, card.cardNumber),
      `${name[0]}${'*'.repeat(name.length - 2)}${name[name.length - 1]}`,
      spot.modelId,
      row.active_time!.getTime(),
      row.expire_time!.getTime(),
      [],
    ]);
    expect(pack.text).not.toContain(card.cardNumber);
    expect(pack.text).not.toContain(card.holderName);
  });

  it('carries the rules: the spot, its gates, the daily limit per model and resource', () => {
    expect(pack.header.spots).toEqual([
      expect.objectContaining({
        skuId: spot.skuId,
        resourceId: spot.spuId,
        allGates: true,
        gates: [
          { id: spot.gate1, name: 'North gate' },
          { id: spot.gate2, name: 'South gate' },
        ],
      }),
    ]);
    expect(pack.header.rules).toEqual([
      expect.objectContaining({ modelId: spot.modelId, resourceId: spot.spuId, dailyLimit: 3 }),
    ]);
    expect(pack.header.expiresAt - pack.header.madeAt).toBe(24 * HOUR);
  });

  it("holds only the verifier's spots' admissible cards", async () => {
    const other = await createSpot(t);
    const foreign = await heldCard(t.db, other.modelId);
    const disabled = await heldCard(t.db, spot.modelId, { status: 3 });
    const expired = await heldCard(t.db, spot.modelId, { expire_time: new Date(Date.now() - HOUR) });
    const unbound = await createCard(t.db, { card_model_id: spot.modelId, status: 1, card_number: `U${Date.now()}` });
    const p = await packOf(spot.checker.token);
    expect(p.cards.has(hashOf(p, card.cardNumber))).toBe(true);
    for (const c of [foreign, disabled, expired]) expect(p.cards.has(hashOf(p, c.cardNumber))).toBe(false);
    expect(p.cards.has(hashOf(p, `U${unbound}`))).toBe(false);
    expect(p.cards.size).toBe(1);
    const theirs = await packOf(other.checker.token);
    expect([...theirs.cards.keys()]).toEqual([hashOf(theirs, foreign.cardNumber)]);
  });

  it("counts today's entries per resource", async () => {
    const res = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber, consumeNum: 2 });
    expect(res.body.errcode, res.body.errmsg).toBe(0);
    const p = await packOf(spot.checker.token);
    expect(p.cards.get(hashOf(p, card.cardNumber))![6]).toEqual([[spot.spuId, 2]]);
  });

  it('is gzip-compressed when the client accepts it', async () => {
    const plain = await fetchPack(spot.checker.token);
    const zipped = await fetchPack(spot.checker.token, {}, { 'accept-encoding': 'gzip, deflate' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const p = parsePack(gunzipSync(zipped.raw.rawPayload).toString());
    expect(verifies(p, publicKey)).toBe(true);
    expect([...p.cards.values()].map((c) => c.slice(2))).toEqual(
      [...parsePack(plain.raw.payload).cards.values()].map((c) => c.slice(2)),
    );
  });
});

describe('batches', () => {
  it('reads every card of every model across batch boundaries, whole and as a delta', async () => {
    const spot = await createSpot(t);
    const second = await createCardModel(t.db);
    await createCardModelRule(t.db, { card_model_id: second, resource_id: spot.spuId, daily_check_limit: 1 });
    const cards = [
      ...(await Promise.all([1, 2, 3, 4, 5].map(() => heldCard(t.db, spot.modelId)))),
      ...(await Promise.all([1, 2, 3].map(() => heldCard(t.db, second)))),
    ];
    await age(cards.map((c) => c.cardId));
    const svc = createOfflinePackService({
      db: t.db,
      keys: createPackKeySource({ db: t.db, configured: null }),
      ttlHours: 24,
      timeZone: t.config.tz,
      batchSize: 2,
    });
    const ctx = { account: { id: spot.checker.id } } as AuthedContext;
    const read = async (since?: string) => {
      let text = '';
      for await (const chunk of await svc.pack(ctx, since ? { since } : {})) text += chunk;
      return parsePack(text);
    };
    const whole = await read();
    expect([...whole.cards.keys()].sort()).toEqual(cards.map((c) => hashOf(whole, c.cardNumber)).sort());
    expect(whole.trailer.cards).toBe(8);
    for (const c of [cards[0], cards[4], cards[6]]) await setCardStatus(t.db, c.cardId, 3, 'lost', 1);
    // New cards never bound or activated were in no pack: they change, but get no tombstone.
    for (let i = 0; i < 3; i++) await createCard(t.db, { card_model_id: spot.modelId, status: 1 });
    const delta = await read(whole.header.cursor);
    expect(delta.tombstones.sort()).toEqual(
      [cards[0], cards[4], cards[6]].map((c) => hashOf(delta, c.cardNumber)).sort(),
    );
  });
});

describe('deltas', () => {
  let spot: Spot;
  let publicKey: string;
  let steady: HeldCard, toDisable: HeldCard, rebound: HeldCard, checked: HeldCard;

  beforeAll(async () => {
    spot = await createSpot(t, { dailyLimit: 2 });
    publicKey = (await t.post(KEY, {}, spot.checker.token)).body.data.publicKey;
    [steady, toDisable, rebound, checked] = await Promise.all([1, 2, 3, 4].map(() => heldCard(t.db, spot.modelId)));
    await age([steady, toDisable, rebound, checked].map((c) => c.cardId));
  });

  it('sends nothing when nothing changed, and what changed after a disable, a new binding and a check', async () => {
    const full = await packOf(spot.checker.token);
    expect(full.cards.size).toBe(4);
    const none = await packOf(spot.checker.token, full.header.cursor);
    expect(none.header).toMatchObject({ full: false, reason: null });
    expect(none.cards.size + none.tombstones.length).toBe(0);
    expect(verifies(none, publicKey)).toBe(true);

    await setCardStatus(t.db, toDisable.cardId, 3, 'lost', 1);
    const binding = await t.db
      .selectFrom('card_binding')
      .select('id')
      .where('card_id', '=', rebound.cardId)
      .where('is_deleted', '=', false)
      .executeTakeFirstOrThrow();
    await endBinding(t.db, binding.id, 1);
    await insertBinding(
      t.db,
      {
        cardId: rebound.cardId,
        memberId: null,
        name: '王小明',
        phone: '13900000001',
        idType: 1,
        idNo: '110101199001011234',
        facePhoto: null,
      },
      1,
    );
    const res = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: checked.cardNumber });
    expect(res.body.errcode, res.body.errmsg).toBe(0);

    const delta = await packOf(spot.checker.token, none.header.cursor);
    expect(delta.header).toMatchObject({ full: false, reason: null });
    expect(verifies(delta, publicKey)).toBe(true);
    expect(delta.tombstones).toEqual([hashOf(delta, toDisable.cardNumber)]);
    expect(delta.cards.get(hashOf(delta, rebound.cardNumber))![2]).toBe('王*明');
    expect(delta.cards.get(hashOf(delta, checked.cardNumber))![6]).toEqual([[spot.spuId, 1]]);
    expect(delta.cards.has(hashOf(delta, steady.cardNumber))).toBe(false);
    expect(delta.cards.size).toBe(2);
    expect(delta.trailer).toMatchObject({ cards: 2, tombstones: 1 });
  });

  it('tombstones a card whose binding ended, and counts a revoked check back', async () => {
    const before = await packOf(spot.checker.token);
    const binding = await t.db
      .selectFrom('card_binding')
      .select('id')
      .where('card_id', '=', steady.cardId)
      .where('is_deleted', '=', false)
      .executeTakeFirstOrThrow();
    await endBinding(t.db, binding.id, 1);
    const check = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: checked.cardNumber });
    expect(check.body.errcode, check.body.errmsg).toBe(0);
    const revoked = await t.post(
      '/app-api/checker/deleteCheckerConsumeRecord',
      { id: check.body.data.id },
      spot.checker.token,
    );
    expect(revoked.body.errcode, revoked.body.errmsg).toBe(0);
    const delta = await packOf(spot.checker.token, before.header.cursor);
    expect(delta.tombstones).toContain(hashOf(delta, steady.cardNumber));
    expect(delta.cards.get(hashOf(delta, checked.cardNumber))![6]).toEqual([[spot.spuId, 1]]);
  });

  it("answers a whole pack, saying why, for another verifier's cursor or changed rules", async () => {
    const other = await createSpot(t);
    const theirs = await packOf(other.checker.token);
    const mine = await packOf(spot.checker.token, theirs.header.cursor);
    expect(mine.header).toMatchObject({ full: true, reason: 'another-verifier' });
    expect(mine.cards.size).toBeGreaterThan(0);

    const base = await packOf(spot.checker.token);
    await t.db
      .updateTable('card_model_resource_rule')
      .set({ daily_check_limit: 5 })
      .where('card_model_id', '=', spot.modelId)
      .execute();
    const after = await packOf(spot.checker.token, base.header.cursor);
    expect(after.header).toMatchObject({ full: true, reason: 'rules-changed' });
    expect(after.header.rules[0].dailyLimit).toBe(5);
  });
});

describe('refusals', () => {
  let spot: Spot;
  beforeAll(async () => {
    spot = await createSpot(t);
  });

  const isRefused = (res: CallResult, errcode: number) => {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.errcode, res.body.errmsg).toBe(errcode);
  };

  it('refuses no token, a staff token and a token of another channel with 401', async () => {
    for (const path of [PACK, KEY]) {
      isRefused(await t.post(path, {}), 401);
      const staff = await staffSession(t, { kind: 'platform', permissions: ['*'] });
      isRefused(await t.post(path, {}, staff.token), 401);
      const account = await loadCheckerAccount(t.db, spot.checker.id);
      const elsewhere = await issueFor(t, account!, 'mp');
      isRefused(await t.post(path, {}, elsewhere.accessToken), 401);
    }
  });

  it('refuses a cursor that is not one, or was altered, with 400', async () => {
    const pack = await packOf(spot.checker.token);
    for (const since of ['nonsense', 'a.b', `${pack.header.cursor}x`, 'x'.repeat(600)]) {
      const res = await fetchPack(spot.checker.token, { since });
      isRefused(res, 400);
      expect(res.body.errmsg).toMatch(/^since is invalid/);
    }
    const [body, mac] = pack.header.cursor.split('.');
    const fields = JSON.parse(Buffer.from(body, 'base64url').toString());
    fields[4] += 3_600_000;
    const forged = `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${mac}`;
    isRefused(await fetchPack(spot.checker.token, { since: forged }), 400);
  });

  it('answers an empty pack to a verifier posted nowhere', async () => {
    const lone = await createSpot(t);
    await t.db.deleteFrom('checker_relation').where('checker_id', '=', lone.checker.id).execute();
    const p = await packOf(lone.checker.token);
    expect(p.header.spots).toEqual([]);
    expect(p.cards.size).toBe(0);
  });
});
