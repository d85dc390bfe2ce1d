import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.js';
import type { Store } from '../store/store.js';
import { unauthorized } from '../errors.js';
import type { Account } from '../http/context.js';
import { findOpenAppByKey } from './open-app.repository.js';

const WINDOW_MS = 5 * 60 * 1000;
const NONCE_TTL_S = 10 * 60;

export interface SignedRequest {
  method: string;
  /** the path as sent, channel prefix included, query string excluded */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** hex SHA-256 of the raw body as received (JSON text or multipart bytes) */
  bodySha256: string;
}

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** What is signed: the method, the path as sent, the timestamp, the nonce and the body's hash. */
export function signingStringForHash(
  method: string,
  path: string,
  timestamp: string,
  nonce: string,
  bodySha256: string,
): string {
  return `${method.toUpperCase()}\n${path}\n${timestamp}\n${nonce}\n${bodySha256}`;
}

export function signingString(
  method: string,
  path: string,
  timestamp: string,
  nonce: string,
  rawBody: string | Buffer,
): string {
  return signingStringForHash(method, path, timestamp, nonce, sha256Hex(rawBody));
}

export function sign(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

const header = (h: SignedRequest['headers'], name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Verifies an HMAC-signed open-channel call (docs/architecture.md §5.5) and answers the calling app as an account. */
export async function verifyOpenSignature(
  db: Db,
  store: Store,
  req: SignedRequest,
  now = Date.now(),
): Promise<Account> {
  const appKey = header(req.headers, 'x-app-key');
  const timestamp = header(req.headers, 'x-timestamp');
  const nonce = header(req.headers, 'x-nonce');
  const signature = header(req.headers, 'x-sign');
  if (!appKey || !timestamp || !nonce || !signature) {
    throw unauthorized('signed call needs X-App-Key, X-Timestamp, X-Nonce and X-Sign');
  }
  if (!/^\d{10,16}$/.test(timestamp) || Math.abs(now - Number(timestamp)) > WINDOW_MS) {
    throw unauthorized('X-Timestamp is outside the 5-minute window');
  }
  if (nonce.length < 8 || nonce.length > 64) throw unauthorized('X-Nonce must be 8 to 64 characters');
  const app = await findOpenAppByKey(db, appKey);
  if (!app || app.status !== 1) throw unauthorized('unknown or disabled app key');
  const expected = Buffer.from(
    sign(app.appSecret, signingStringForHash(req.method, req.path, timestamp, nonce, req.bodySha256)),
    'hex',
  );
  const given = /^[0-9a-fA-F]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthorized('signature mismatch');
  // The nonce is spent only by a correctly signed call, so nobody can burn another app's nonces.
  if (!(await store.setIfAbsent(`nonce:${app.appKey}:${nonce}`, '1', NONCE_TTL_S))) {
    throw unauthorized('X-Nonce has already been used');
  }
  return {
    id: app.id,
    kind: 'openApp',
    name: app.name,
    userType: null,
    merchantId: null,
    shopId: null,
    permissions: [],
  };
}
