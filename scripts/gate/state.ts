import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { GateAuth } from './client.js';
import type { StoredPack } from './pack.js';

/**
 * What a gate keeps between runs, in one JSON file: where the service is, the verifier's tokens, the
 * public keys it trusts, the pack, and its scans with their nonces, queued until the service answers
 * them. It holds tokens and card numbers: a file for the gate alone (written with mode 0600).
 */

/** The service's answer to one uploaded scan (syncOfflineChecks). */
export interface ScanAnswer {
  result: 'recorded' | 'duplicate' | 'refused' | 'conflict';
  id?: number;
  errcode?: number;
  errmsg?: string;
  conflicts?: Array<{ kind: number; limit: number; count: number }>;
}

export interface GateScan {
  nonce: string;
  cardNumber: string;
  skuId: number;
  entranceId: number | null;
  resourceId: number;
  /** YYYY-MM-DD HH:mm:ss in the service time zone */
  checkTime: string;
  day: string;
  consumeNum: number;
  /** the answer, and when (epoch ms, the gate's clock) it came; none: still queued */
  answer?: ScanAnswer & { at: number };
  /** answered before the pack held was read: the pack's usedToday counts it already */
  inPack?: boolean;
}

export interface GateState {
  version: 1;
  url: string;
  auth: GateAuth | null;
  /** keyId → raw Ed25519 public key, base64 */
  keys: Record<string, string>;
  pack: StoredPack | null;
  scans: GateScan[];
}

export function newState(url: string): GateState {
  return { version: 1, url, auth: null, keys: {}, pack: null, scans: [] };
}

export function loadState(file: string): GateState | null {
  if (!existsSync(file)) return null;
  const s = JSON.parse(readFileSync(file, 'utf8')) as GateState;
  if (s.version !== 1) throw new Error(`${file}: not a gate state file of version 1`);
  return s;
}

/** Written whole to a temporary file and renamed over the old one, so a crash leaves one or the other. */
export function saveState(file: string, state: GateState): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
  renameSync(tmp, file);
}

/** Scans not answered yet, oldest first: what the next sync uploads. */
export const queued = (s: GateState) => s.scans.filter((x) => !x.answer);

/** Whether an answered scan took entries on the server (a refusal took none). */
const counted = (a: ScanAnswer) => a.result !== 'refused' && !(a.result === 'duplicate' && a.errcode !== undefined);

/**
 * Entries the gate admitted for a card at a resource on a day that its pack does not count yet: the
 * scans still queued, and those answered as taking entries after the pack was read.
 */
export function ownEntries(s: GateState, cardNumber: string, resourceId: number, day: string): number {
  let n = 0;
  for (const x of s.scans)
    if (x.cardNumber === cardNumber && x.resourceId === resourceId && x.day === day && !x.inPack)
      if (!x.answer || counted(x.answer)) n += x.consumeNum;
  return n;
}
