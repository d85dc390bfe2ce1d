import { authed } from '../../platform/http/context.js';
import { streamedText } from '../../platform/http/line-stream.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { PACK_MEDIA_TYPE } from './offline-pack-format.js';
import type { OfflinePackService } from './offline-pack.service.js';
import { OfflinePackKeyResponse, OfflinePackRequest } from './offline-pack.schemas.js';

const tags = ['checker'];
const verifier = { kinds: ['checker' as const] };

const PACK_DESCRIPTION = [
  'NDJSON (`application/x-ndjson`, gzip when Accept-Encoding allows; format `tc-offline-pack/1`, docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md):',
  '1. a header object: `keyId`, `madeAt`/`expiresAt` (epoch ms), `timeZone`, `day`, `full` and `reason` (why a pack asked as a delta is whole),',
  '`cursor` (send it back as `since` for the next delta), `hash` (the HMAC-SHA256 key of card numbers, base64url, and the bytes kept),',
  '`uploadWindowHours`, `spots` (skuId, name, resourceId, allGates, gates), `rules` (modelId × resourceId → dailyLimit), `cardRules` (the order of refusals, with their codes);',
  '2. one line per card: `["c", hash, maskedHolder, modelId, activeTime, expireTime|null, [[resourceId, entriesUsedToday]…]]`, or a tombstone `["x", hash]` in a delta;',
  '3. a trailer object: `cards`, `tombstones`, `digest` (base64url SHA-256 of the bytes of the card and tombstone lines, newlines included) and `signature`',
  "(base64url Ed25519 over the header line's bytes, without its newline, followed by the 32 digest bytes).",
  'Verify it with the public key of `POST /app-api/checker/offlinePackKey` (base64 of the raw 32 bytes, or SPKI PEM) whose keyId the header names.',
  "A card's hash is base64url of the first 16 bytes of HMAC-SHA256(hash key, card number as UTF-8).",
].join(' ');

/** The offline pack of a gate and the key it is signed with (issue 39, app channel). */
export function offlinePackRoutes(svc: OfflinePackService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/checker/offlinePack',
      channels: ['app'],
      auth: verifier,
      summary:
        "What a gate needs to decide scans without the network, for the verifier's scenic spots: the admissible cards " +
        "(keyed hashes of their numbers, masked holders, validity, today's entries), the rules, signed (Ed25519) with an expiry; " +
        '`since` a cursor answers only what changed (a delta). Streamed',
      description: PACK_DESCRIPTION,
      tags,
      body: OfflinePackRequest,
      response: 'file',
      file: {
        mediaTypes: [PACK_MEDIA_TYPE],
        description: 'The signed pack as NDJSON lines, streamed (see the description)',
        headers: { 'Content-Encoding': { description: 'gzip when the request accepts it' } },
      },
      handler: async (ctx, { body }, { request }) =>
        streamedText(await svc.pack(authed(ctx), body), {
          contentType: PACK_MEDIA_TYPE,
          acceptEncoding: request.headers['accept-encoding'],
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/checker/offlinePackKey',
      channels: ['app'],
      auth: verifier,
      summary:
        'The Ed25519 public key offline packs are signed with: its id (named in every pack header), the raw 32 bytes in base64 and SPKI PEM',
      tags,
      response: OfflinePackKeyResponse,
      handler: () => svc.key(),
    }),
  ];
}
