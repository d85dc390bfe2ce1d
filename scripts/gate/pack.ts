import { createHash, createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';

/**
 * Reading and verifying an offline pack (`tc-offline-pack/1`, docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md)
 * as a gate does: the lines as they come, the SHA-256 of the card and tombstone lines' bytes, the
 * Ed25519 signature over the header line and that digest, the expiry; then a whole pack replaces
 * what the gate holds and a delta is applied to it.
 */

export const PACK_FORMAT = 'tc-offline-pack/1';

export interface PackSpot {
  skuId: number;
  name: string;
  resourceId: number;
  resourceName: string;
  allGates: boolean;
  gates: Array<{ id: number; name: string }>;
}

export interface PackRule {
  modelId: number;
  modelName: string;
  resourceId: number;
  dailyLimit: number;
}

/** A card as a gate keeps it: masked holder, model, validity (epoch ms) and today's entries per resource. */
export interface PackCard {
  holder: string | null;
  modelId: number;
  activeMs: number;
  expireMs: number | null;
  usedToday: Array<[resourceId: number, entries: number]>;
}

export interface PackHeader {
  type: 'header';
  format: string;
  keyId: string;
  checkerId: number;
  madeAt: number;
  expiresAt: number;
  timeZone: string;
  day: string;
  full: boolean;
  reason: string | null;
  deltaOf: number | null;
  cursor: string;
  hash: { algorithm: string; key: string; bytes: number; encoding: string };
  uploadWindowHours: number;
  clockSkewSeconds: number;
  spots: PackSpot[];
  rules: PackRule[];
  /** [name, errcode, description], in the order refusals are given */
  cardRules: Array<[string, number, string]>;
}

interface PackTrailer {
  type: 'trailer';
  cards: number;
  tombstones: number;
  digest: string;
  signature: string;
}

/** A verified pack as read: its header, its cards by hash and, in a delta, the hashes to drop. */
export interface PackRead {
  header: PackHeader;
  cards: Map<string, PackCard>;
  tombstones: string[];
  bytes: number;
}

/** The pack a gate holds between refreshes (stored in its state file). */
export interface StoredPack {
  keyId: string;
  madeAt: number;
  expiresAt: number;
  timeZone: string;
  day: string;
  cursor: string;
  hashKey: string;
  hashBytes: number;
  uploadWindowHours: number;
  spots: PackSpot[];
  rules: PackRule[];
  cardRules: Array<[string, number, string]>;
  cards: Record<string, PackCard>;
}

export class PackRejected extends Error {}

/** The published key's id: base64url of the first 9 bytes of SHA-256 of the raw 32 bytes (ADR 0107). */
export function keyIdOf(rawBase64: string): string {
  return createHash('sha256').update(Buffer.from(rawBase64, 'base64')).digest().subarray(0, 9).toString('base64url');
}

/** The raw Ed25519 public key (RFC 8032, 32 bytes in base64) as a key node:crypto verifies with. */
export function publicKeyOf(rawBase64: string): KeyObject {
  const x = Buffer.from(rawBase64, 'base64').toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/** A scanned number's keyed hash, as the pack names its cards. */
export function cardHashOf(pack: Pick<StoredPack, 'hashKey' | 'hashBytes'>, cardNumber: string): string {
  return createHmac('sha256', Buffer.from(pack.hashKey, 'base64url'))
    .update(cardNumber, 'utf8')
    .digest()
    .subarray(0, pack.hashBytes)
    .toString('base64url');
}

/** The lines of a byte stream, each with its newline, as the bytes they were sent as. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<Buffer> {
  let rest = Buffer.alloc(0);
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    let buf = rest.length ? Buffer.concat([rest, chunk]) : Buffer.from(chunk);
    let nl: number;
    while ((nl = buf.indexOf(0x0a)) >= 0) {
      yield buf.subarray(0, nl + 1);
      buf = buf.subarray(nl + 1);
    }
    rest = buf;
  }
  if (rest.length) yield rest;
}

function json<T>(line: Buffer, what: string): T {
  try {
    return JSON.parse(line.toString('utf8')) as T;
  } catch {
    throw new PackRejected(`${what} is not JSON`);
  }
}

/**
 * Reads a pack and verifies it while reading; throws PackRejected when anything is off (cut before
 * the trailer, a digest or signature that does not match, an unknown key, expired), so the gate
 * keeps the pack it had.
 */
export async function readPack(
  stream: ReadableStream<Uint8Array>,
  keys: Record<string, string>,
  now: number,
): Promise<PackRead> {
  const digest = createHash('sha256');
  let headerBytes: Buffer | null = null;
  let header: PackHeader | null = null;
  let trailer: PackTrailer | null = null;
  const cards = new Map<string, PackCard>();
  const tombstones: string[] = [];
  let bytes = 0;
  for await (const line of lines(stream)) {
    bytes += line.length;
    if (trailer) throw new PackRejected('lines after the trailer');
    if (!header) {
      headerBytes = line.subarray(0, line.length - 1);
      header = json<PackHeader>(line, 'the header');
      if (header.type !== 'header' || header.format !== PACK_FORMAT)
        throw new PackRejected(`not a ${PACK_FORMAT} header`);
      continue;
    }
    if (line[0] === 0x7b /* { */) {
      trailer = json<PackTrailer>(line, 'the trailer');
      continue;
    }
    digest.update(line);
    const f = json<unknown[]>(line, 'a card line');
    if (f[0] === 'c') {
      const [, hash, holder, modelId, activeMs, expireMs, usedToday] = f as [
        'c',
        string,
        string | null,
        number,
        number,
        number | null,
        Array<[number, number]>,
      ];
      cards.set(hash, { holder, modelId, activeMs, expireMs, usedToday });
    } else if (f[0] === 'x') tombstones.push(f[1] as string);
    else throw new PackRejected(`an unknown line kind ${JSON.stringify(f[0])}`);
  }
  if (!header || !headerBytes) throw new PackRejected('an empty pack');
  if (!trailer || trailer.type !== 'trailer') throw new PackRejected('the pack was cut: no trailer');
  if (trailer.cards !== cards.size || trailer.tombstones !== tombstones.length)
    throw new PackRejected(
      `the trailer counts ${trailer.cards}/${trailer.tombstones} lines, the pack had ${cards.size}/${tombstones.length}`,
    );
  const sum = digest.digest();
  const claimed = Buffer.from(trailer.digest, 'base64url');
  if (claimed.length !== sum.length || !timingSafeEqual(claimed, sum))
    throw new PackRejected('the digest of the card lines does not match');
  const raw = keys[header.keyId];
  if (!raw) throw new PackRejected(`signed by an unknown key ${header.keyId}`);
  const signed = Buffer.concat([headerBytes, sum]);
  if (!verify(null, signed, publicKeyOf(raw), Buffer.from(trailer.signature, 'base64url')))
    throw new PackRejected('the signature does not verify');
  if (header.expiresAt <= now) throw new PackRejected(`expired at ${new Date(header.expiresAt).toISOString()}`);
  return { header, cards, tombstones, bytes };
}

/** Whether a delta applies to the pack held: the same key, day and hash key, made from its cursor. */
export function deltaApplies(held: StoredPack | null, h: PackHeader): boolean {
  return (
    held !== null &&
    h.deltaOf === held.madeAt &&
    h.keyId === held.keyId &&
    h.day === held.day &&
    h.hash.key === held.hashKey
  );
}

/** The pack to hold after a verified read: a whole pack as it is, a delta merged into the held one. */
export function applyPack(held: StoredPack | null, read: PackRead): StoredPack {
  const h = read.header;
  let cards: Record<string, PackCard>;
  if (h.full) cards = Object.fromEntries(read.cards);
  else {
    if (!deltaApplies(held, h)) throw new PackRejected('the delta is not of the pack held');
    cards = { ...held!.cards };
    for (const hash of read.tombstones) delete cards[hash];
    for (const [hash, card] of read.cards) cards[hash] = card;
  }
  return {
    keyId: h.keyId,
    madeAt: h.madeAt,
    expiresAt: h.expiresAt,
    timeZone: h.timeZone,
    day: h.day,
    cursor: h.cursor,
    hashKey: h.hash.key,
    hashBytes: h.hash.bytes,
    uploadWindowHours: h.uploadWindowHours,
    spots: h.spots,
    rules: h.rules,
    cardRules: h.cardRules,
    cards,
  };
}
