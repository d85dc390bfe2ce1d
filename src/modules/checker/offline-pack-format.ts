import { createHash, createHmac, timingSafeEqual, type Hash } from 'node:crypto';
import { badRequest } from '../../platform/errors.js';
import type { Ed25519Key } from '../../platform/signing/ed25519.js';

/**
 * The lines of an offline pack (docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md): NDJSON, a
 * header object, one compact array per card or tombstone, a trailer object with the counts, the
 * SHA-256 of the card lines and the Ed25519 signature over the header line and that digest.
 */
export const PACK_FORMAT = 'tc-offline-pack/1';
export const PACK_MEDIA_TYPE = 'application/x-ndjson';
/** Bytes of HMAC-SHA256 kept of a card number's hash: 128 bits, 22 base64url characters. */
export const CARD_HASH_BYTES = 16;

/** A card number's keyed hash as the pack carries it; a gate computes the same of the number it scans. */
export function cardHash(hashKey: Buffer, cardNumber: string): string {
  return createHmac('sha256', hashKey)
    .update(cardNumber, 'utf8')
    .digest()
    .subarray(0, CARD_HASH_BYTES)
    .toString('base64url');
}

/**
 * A holder's name as a gate may show it: the first character and, for three or more, the last;
 * the rest stars (张三 → 张*, 王小明 → 王*明, Alice Smith → A*********h).
 */
export function maskName(name: string | null): string | null {
  if (name === null) return null;
  const chars = [...name.trim()];
  if (chars.length === 0) return null;
  if (chars.length === 1) return '*';
  if (chars.length === 2) return `${chars[0]}*`;
  return `${chars[0]}${'*'.repeat(chars.length - 2)}${chars[chars.length - 1]}`;
}

/** A card line: the hash, masked holder, model, validity (epoch ms, null for none) and today's entries per resource. */
export function cardLine(
  hash: string,
  holder: string | null,
  modelId: number,
  activeMs: number,
  expireMs: number | null,
  usedToday: Array<[number, number]>,
): string {
  return `${JSON.stringify(['c', hash, holder, modelId, activeMs, expireMs, usedToday])}\n`;
}

/** A tombstone: the card is no longer admissible, a gate drops it. */
export const tombstoneLine = (hash: string) => `["x","${hash}"]\n`;

/**
 * Digests the card lines as they are sent, and signs header line + digest at the end, so a gate
 * verifies while it reads and nothing of the pack is held to sign it.
 */
export class PackDigest {
  private readonly hash: Hash = createHash('sha256');
  cards = 0;
  tombstones = 0;

  add(line: string, kind: 'card' | 'tombstone'): string {
    this.hash.update(line, 'utf8');
    if (kind === 'card') this.cards++;
    else this.tombstones++;
    return line;
  }

  trailer(key: Ed25519Key, headerLine: string): string {
    const digest = this.hash.digest();
    const signature = key.sign(Buffer.concat([Buffer.from(headerLine, 'utf8'), digest]));
    return `${JSON.stringify({
      type: 'trailer',
      cards: this.cards,
      tombstones: this.tombstones,
      digest: digest.toString('base64url'),
      signature: signature.toString('base64url'),
    })}\n`;
  }
}

/** What a cursor remembers of the pack that carried it; the next delta is what changed since. */
export interface PackCursor {
  keyId: string;
  checkerId: number;
  /** the service-zone day the pack's entries are counted for */
  day: string;
  /** epoch ms: rows updated after this are in the delta (the pack's start less an overlap) */
  since: number;
  /** the highest check id of the day when the pack was read */
  checkId: number;
  /** SHA-256 (base64url, 16 characters) of the pack's spots and rules: a change makes the next pack whole */
  rules: string;
  madeAt: number;
}

const CURSOR_LABEL = 'offline-pack-cursor';

/** A cursor: its fields, and a MAC under the signing key, so a gate cannot forge one. */
export function encodeCursor(key: Ed25519Key, c: PackCursor): string {
  const body = Buffer.from(JSON.stringify([1, c.keyId, c.checkerId, c.day, c.since, c.checkId, c.rules, c.madeAt]));
  const mac = key.mac(CURSOR_LABEL, body).subarray(0, 16);
  return `${body.toString('base64url')}.${mac.toString('base64url')}`;
}

const invalidCursor = () => badRequest('since is invalid: it is not the cursor of an offline pack');

/**
 * The cursor a gate sent back. Malformed or altered → 400. A cursor of another key is read unchecked
 * (its MAC cannot be checked any more): it only ever leads to a whole pack.
 */
export function decodeCursor(key: Ed25519Key, text: string): PackCursor {
  const [body64, mac64, extra] = text.split('.');
  if (!body64 || !mac64 || extra !== undefined) throw invalidCursor();
  const body = Buffer.from(body64, 'base64url');
  let f: unknown;
  try {
    f = JSON.parse(body.toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (
    !Array.isArray(f) ||
    f.length !== 8 ||
    f[0] !== 1 ||
    typeof f[1] !== 'string' ||
    !Number.isSafeInteger(f[2]) ||
    typeof f[3] !== 'string' ||
    !Number.isSafeInteger(f[4]) ||
    !Number.isSafeInteger(f[5]) ||
    typeof f[6] !== 'string' ||
    !Number.isSafeInteger(f[7])
  )
    throw invalidCursor();
  const cursor: PackCursor = {
    keyId: f[1] as string,
    checkerId: f[2] as number,
    day: f[3] as string,
    since: f[4] as number,
    checkId: f[5] as number,
    rules: f[6] as string,
    madeAt: f[7] as number,
  };
  if (cursor.keyId === key.keyId) {
    const mac = Buffer.from(mac64, 'base64url');
    const expected = key.mac(CURSOR_LABEL, body).subarray(0, 16);
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw invalidCursor();
  }
  return cursor;
}
