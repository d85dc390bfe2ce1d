import { randomUUID } from 'node:crypto';
import { zonedDateTime } from './clock.js';
import type { GateClient } from './client.js';
import { decide, type Decision, type ScanInput } from './decide.js';
import { applyPack, deltaApplies, keyIdOf, readPack, type PackRead } from './pack.js';
import { ownEntries, queued, type GateScan, type GateState, type ScanAnswer } from './state.js';

/**
 * What a gate does (docs/domain.md §4.1): refresh its pack while online, decide scans offline and
 * queue the admitted ones with a nonce, upload the queue when back online and refresh again.
 */

/** Scans one upload carries at most (syncOfflineChecks). */
export const SYNC_BATCH = 500;

export interface RefreshOutcome {
  delta: boolean;
  /** why a pack asked as a delta came whole (the header's reason) */
  reason: string | null;
  cards: number;
  tombstones: number;
  bytes: number;
  heldCards: number;
}

/**
 * Fetches the published key (its id checked against its bytes) and the pack, a delta when a cursor
 * is held; verifies it and keeps it. A delta that does not apply to the pack held (the held pack was
 * lost or replaced) is answered by fetching the whole pack.
 */
export async function refreshPack(
  state: GateState,
  client: GateClient,
  now = () => Date.now(),
): Promise<RefreshOutcome> {
  const startedAt = now();
  const key = await client.post<{ keyId: string; algorithm: string; publicKey: string }>('/checker/offlinePackKey');
  if (key.algorithm !== 'Ed25519' || keyIdOf(key.publicKey) !== key.keyId)
    throw new Error(`the published key ${key.keyId} does not match its bytes`);
  state.keys[key.keyId] = key.publicKey;

  const since = state.pack?.cursor ?? null;
  let read: PackRead = await readPack(await client.packStream(since), state.keys, now());
  if (!read.header.full && !deltaApplies(state.pack, read.header))
    read = await readPack(await client.packStream(null), state.keys, now());
  state.pack = applyPack(state.pack, read);

  // The pack was read after these answers were stored: its usedToday counts them. Scans of earlier
  // days are done with.
  for (const s of state.scans) if (s.answer && s.answer.at <= startedAt) s.inPack = true;
  state.scans = state.scans.filter((s) => !s.answer || s.day >= state.pack!.day);
  return {
    delta: !read.header.full,
    reason: read.header.reason,
    cards: read.cards.size,
    tombstones: read.tombstones.length,
    bytes: read.bytes,
    heldCards: Object.keys(state.pack.cards).length,
  };
}

/** Decides a scan from the pack alone; an admitted scan is queued with a new nonce. */
export function scanOffline(state: GateState, input: ScanInput): Decision & { nonce?: string } {
  if (!state.pack) throw new Error('no pack held: run `pack` while online first');
  const pack = state.pack;
  const d = decide(pack, input, (card, resource, day) => ownEntries(state, card, resource, day));
  if (!d.admit) return d;
  const nonce = `gate-${randomUUID()}`;
  state.scans.push({
    nonce,
    cardNumber: input.cardNumber,
    skuId: input.skuId,
    entranceId: input.entranceId,
    resourceId: d.resourceId,
    checkTime: zonedDateTime(input.at, pack.timeZone),
    day: d.day,
    consumeNum: input.consumeNum,
  });
  return { ...d, nonce };
}

export interface SyncOutcome {
  answered: Array<{ scan: GateScan; answer: ScanAnswer }>;
  /** scans left queued for the next sync */
  unanswered: number;
  /** why the upload stopped before the end (the network, a cut answer, a refusal of the request) */
  error: Error | null;
}

/**
 * Uploads the queue in requests of at most `batchSize`, storing each request's answers (persist)
 * before the next. A request that gets no answer leaves its scans queued: sent again, what the
 * service had stored answers as duplicates with its first answer.
 */
export async function syncQueue(
  state: GateState,
  client: GateClient,
  persist: () => void,
  opts: { batchSize?: number; now?: () => number } = {},
): Promise<SyncOutcome> {
  const batchSize = opts.batchSize ?? SYNC_BATCH;
  const now = opts.now ?? (() => Date.now());
  const todo = queued(state);
  const answered: SyncOutcome['answered'] = [];
  let error: Error | null = null;
  for (let i = 0; i < todo.length; i += batchSize) {
    const batch = todo.slice(i, i + batchSize);
    let results: Array<ScanAnswer & { nonce: string }>;
    try {
      ({ results } = await client.post<{ results: Array<ScanAnswer & { nonce: string }> }>(
        '/checker/syncOfflineChecks',
        {
          scans: batch.map((s) => ({
            nonce: s.nonce,
            cardNumber: s.cardNumber,
            skuId: s.skuId,
            ...(s.entranceId !== null ? { entranceId: s.entranceId } : {}),
            checkTime: s.checkTime,
            consumeNum: s.consumeNum,
          })),
        },
      ));
    } catch (e) {
      error = e as Error;
      break;
    }
    const byNonce = new Map(results.map((r) => [r.nonce, r]));
    const at = now();
    for (const scan of batch) {
      const r = byNonce.get(scan.nonce);
      if (!r) continue; // unanswered: stays queued
      const { nonce: _, ...answer } = r;
      scan.answer = { ...answer, at };
      answered.push({ scan, answer });
    }
    persist();
  }
  return { answered, unanswered: queued(state).length, error };
}
