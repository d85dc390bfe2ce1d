import { Type, type Static } from 'typebox';
import { Opt } from '../../platform/http/schemas.js';

/** The offline pack of a gate and its signing key (docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md). */

export const OfflinePackRequest = Type.Object(
  {
    since: Opt(
      Type.String({
        maxLength: 512,
        pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
        examples: ['WzEsIms5eDJhYiIsMSwiMjAyNi0xMi0wNyJd.c2lnbmF0dXJlMTIzNDU2'],
        description:
          "the `cursor` of the header of an earlier pack: only what changed since is sent (a delta); a cursor of another key, day or verifier, too old or whose rules changed answers a whole pack, saying why in the header's `reason`",
      }),
    ),
  },
  { title: 'OfflinePackRequest' },
);
export type OfflinePackRequest = Static<typeof OfflinePackRequest>;

export const OfflinePackKeyResponse = Type.Object(
  {
    keyId: Type.String({ description: "the key's id, as every pack's header names its key" }),
    algorithm: Type.Literal('Ed25519'),
    publicKey: Type.String({ description: 'base64 of the raw 32-byte Ed25519 public key (RFC 8032)' }),
    publicKeyPem: Type.String({ description: 'the same key as SPKI PEM' }),
  },
  { title: 'OfflinePackKeyResponse' },
);
export type OfflinePackKeyResponse = Static<typeof OfflinePackKeyResponse>;
