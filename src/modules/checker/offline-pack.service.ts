import { createHash } from 'node:crypto';
import type { Db } from '../../platform/db/database.js';
import { dayText } from '../../platform/date-range.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Ed25519Key } from '../../platform/signing/ed25519.js';
import { CheckinError } from './checkin.errors.js';
import { CLOCK_SKEW_S, OFFLINE_MAX_AGE_H } from './checkin-rules.js';
import {
  cardHash,
  cardLine,
  CARD_HASH_BYTES,
  decodeCursor,
  encodeCursor,
  maskName,
  PackDigest,
  PACK_FORMAT,
  tombstoneLine,
  type PackCursor,
} from './offline-pack-format.js';
import type { PackKeySource } from './offline-pack-key.js';
import * as repo from './offline-pack.repository.js';
import type { OfflinePackKeyResponse, OfflinePackRequest } from './offline-pack.schemas.js';

/** Cards per read and per chunk written. */
const DEFAULT_BATCH = 10_000;
/**
 * A delta re-sends what changed in the last minutes before its cursor was made: a card's updated_at
 * is its writer's clock at the statement, committed a little later, on instances whose clocks differ.
 */
const CURSOR_OVERLAP_MS = 5 * 60_000;

/** The card rules a gate applies to a scanned card, in the order refusals are given (docs/domain.md §4). */
const CARD_RULES: Array<[string, number, string]> = [
  [
    'NOT_ALLOWED_HERE',
    CheckinError.NOT_ALLOWED_HERE,
    "the scan's spot is one of `spots`, its gate one of the spot's gates (any when allGates)",
  ],
  ['CHECK_TIME_IN_FUTURE', CheckinError.CHECK_TIME_IN_FUTURE, 'an upload is refused for a time in the future'],
  [
    'CHECK_TIME_TOO_OLD',
    CheckinError.CHECK_TIME_TOO_OLD,
    'an upload more than uploadWindowHours after the scan is refused',
  ],
  [
    'CARD_UNKNOWN',
    CheckinError.CARD_UNKNOWN,
    "the scanned number's hash is not in the pack (unknown, unbound, disabled or expired)",
  ],
  ['CARD_NOT_ACTIVE_YET', CheckinError.CARD_NOT_ACTIVE_YET, 'the scan is before activeTime'],
  ['CARD_EXPIRED', CheckinError.CARD_EXPIRED, 'the scan is after expireTime'],
  ['CARD_NOT_VALID_HERE', CheckinError.CARD_NOT_VALID_HERE, "the card's model has no rule for the spot's resource"],
  [
    'DAILY_LIMIT_REACHED',
    CheckinError.DAILY_LIMIT_REACHED,
    "usedToday for the spot's resource plus this gate's own scans would pass dailyLimit",
  ],
];

/** Why a pack asked as a delta is whole. */
export type FullReason = 'no-cursor' | 'another-key' | 'another-verifier' | 'another-day' | 'too-old' | 'rules-changed';

/**
 * `offlinePack` and `offlinePackKey` (docs/domain.md §4.1, docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md):
 * what a gate needs to decide a scan alone, for the verifier's spots, streamed as signed NDJSON
 * lines. The scope, the rules and the first batch are read before the answer starts, so a failure
 * there answers the error envelope.
 */
export function createOfflinePackService(deps: {
  db: Db;
  keys: PackKeySource;
  ttlHours: number;
  timeZone: string;
  now?: () => Date;
  /** cards per read (tests make it small to cross batch and model boundaries) */
  batchSize?: number;
}) {
  const { db, keys } = deps;
  const now = deps.now ?? (() => new Date());
  const batchSize = deps.batchSize ?? DEFAULT_BATCH;

  /** A whole pack unless the cursor allows a delta, and why. */
  function baseOf(key: Ed25519Key, cursor: PackCursor | null, checkerId: number, day: string, rules: string, at: Date) {
    const whole = (reason: FullReason) => ({ delta: null, reason });
    if (!cursor) return whole('no-cursor');
    if (cursor.keyId !== key.keyId) return whole('another-key');
    if (cursor.checkerId !== checkerId) return whole('another-verifier');
    if (cursor.day !== day) return whole('another-day');
    if (at.getTime() - cursor.madeAt > deps.ttlHours * 3_600_000) return whole('too-old');
    if (cursor.rules !== rules) return whole('rules-changed');
    return { delta: cursor, reason: null };
  }

  return {
    async key(): Promise<OfflinePackKeyResponse> {
      const key = await keys.get();
      return { keyId: key.keyId, algorithm: 'Ed25519', publicKey: key.publicKeyRaw, publicKeyPem: key.publicKeyPem };
    },

    /** The pack's lines, in chunks; its first cards are read when this resolves. */
    async pack(ctx: AuthedContext, input: OfflinePackRequest): Promise<AsyncIterable<string>> {
      const key = await keys.get();
      const checkerId = ctx.account.id;
      const cursor = input.since ? decodeCursor(key, input.since) : null;
      const at = now();
      const day = dayText(at);
      const spots = await repo.readPackSpots(db, checkerId);
      const resourceIds = [...new Set(spots.map((s) => s.resourceId))];
      const rules = await repo.readPackRules(db, resourceIds);
      const models = [...new Set(rules.map((r) => r.modelId))];
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([spots, rules]))
        .digest()
        .subarray(0, 12)
        .toString('base64url');
      const { delta, reason } = baseOf(key, cursor, checkerId, day, fingerprint, at);
      const checkId = await repo.maxCheckIdOfDay(db, day);
      const usage = await repo.readUsage(db, day, resourceIds);
      const hashKey = key.mac('offline-pack-hash', `${checkerId}\n${day}`);
      const next = encodeCursor(key, {
        keyId: key.keyId,
        checkerId,
        day,
        since: at.getTime() - CURSOR_OVERLAP_MS,
        checkId,
        rules: fingerprint,
        madeAt: at.getTime(),
      });
      const headerLine = JSON.stringify({
        type: 'header',
        format: PACK_FORMAT,
        keyId: key.keyId,
        algorithm: 'Ed25519',
        checkerId,
        madeAt: at.getTime(),
        expiresAt: at.getTime() + deps.ttlHours * 3_600_000,
        timeZone: deps.timeZone,
        day,
        full: delta === null,
        reason,
        deltaOf: delta ? delta.madeAt : null,
        cursor: next,
        hash: {
          algorithm: 'HMAC-SHA256',
          key: hashKey.toString('base64url'),
          bytes: CARD_HASH_BYTES,
          encoding: 'base64url',
        },
        uploadWindowHours: OFFLINE_MAX_AGE_H,
        clockSkewSeconds: CLOCK_SKEW_S,
        spots,
        rules,
        cardRules: CARD_RULES,
        lines: {
          card: ['c', 'hash', 'holder', 'modelId', 'activeTime', 'expireTime', 'usedToday [[resourceId, entries]]'],
          tombstone: ['x', 'hash'],
        },
      });
      const digest = new PackDigest();
      const line = (c: repo.PackCardRow) =>
        digest.add(
          cardLine(
            cardHash(hashKey, c.cardNumber),
            maskName(c.holderName),
            c.modelId,
            c.activeMs,
            c.expireMs,
            usage.get(c.id) ?? [],
          ),
          'card',
        );
      const body = delta
        ? await deltaChunks(
            db,
            batchSize,
            { models, resourceIds, since: new Date(delta.since), day, checkId: delta.checkId, at },
            (r) => (r.card ? line(r.card) : digest.add(tombstoneLine(cardHash(hashKey, r.cardNumber)), 'tombstone')),
          )
        : await wholeChunks(db, batchSize, { models, at }, line);
      return (async function* () {
        yield `${headerLine}\n`;
        yield* body;
        yield digest.trailer(key, headerLine);
      })();
    },
  };
}

/** Yields chunks of lines while the next batch is read; the first batch is read before it returns. */
async function chunked<T>(read: (previous: T[] | null) => Promise<T[] | null>, toLine: (row: T) => string) {
  let batch = await read(null);
  return (async function* () {
    while (batch && batch.length > 0) {
      const next = read(batch);
      next.catch(() => {}); // awaited below; a client gone meanwhile must not leave it unhandled
      let chunk = '';
      for (const row of batch) chunk += toLine(row);
      yield chunk;
      batch = await next;
    }
  })();
}

/** The admissible cards of each model in turn, in id order. */
function wholeChunks(
  db: Db,
  batchSize: number,
  q: { models: number[]; at: Date },
  toLine: (c: repo.PackCardRow) => string,
) {
  let model = 0;
  let after = 0;
  return chunked<repo.PackCardRow>(async (previous) => {
    for (;;) {
      if (model >= q.models.length) return null;
      if (previous && previous.length < batchSize) {
        // The model's cards are done: the next one from its first card.
        model++;
        after = 0;
        previous = null;
        continue;
      }
      const batch = await repo.readPackCards(db, { modelId: q.models[model], after, limit: batchSize, now: q.at });
      if (batch.length > 0) {
        after = batch[batch.length - 1].id;
        return batch;
      }
      model++;
      after = 0;
    }
  }, toLine);
}

async function deltaChunks(
  db: Db,
  batchSize: number,
  q: { models: number[]; resourceIds: number[]; since: Date; day: string; checkId: number; at: Date },
  toLine: (c: Awaited<ReturnType<typeof repo.readCardsByIds>>[number]) => string,
) {
  const ids = await repo.changedCardIds(db, q);
  let offset = 0;
  return chunked(async () => {
    if (offset >= ids.length) return null;
    const slice = ids.slice(offset, offset + batchSize);
    offset += batchSize;
    return repo.readCardsByIds(db, slice, q.at);
  }, toLine);
}

export type OfflinePackService = ReturnType<typeof createOfflinePackService>;
