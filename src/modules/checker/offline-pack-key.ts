import type { Db } from '../../platform/db/database.js';
import { generateEd25519Key, readEd25519Key, type Ed25519Key } from '../../platform/signing/ed25519.js';
import { offerPackKey, readPackKey } from './offline-pack-key.repository.js';

/**
 * The key offline packs are signed with (docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md):
 * OFFLINE_PACK_SIGNING_KEY when set, else the key kept in the database, made by the first instance
 * that needs one. Read once per process; a rotation is a new configured key and a restart.
 */
export function createPackKeySource(deps: { db: Db; configured: string | null }) {
  let key: Promise<Ed25519Key> | null = null;

  async function load(): Promise<Ed25519Key> {
    if (deps.configured) return readEd25519Key(deps.configured);
    const stored = await readPackKey(deps.db);
    if (stored) return readEd25519Key(stored);
    const fresh = generateEd25519Key();
    await offerPackKey(deps.db, fresh.keyId, fresh.pkcs8);
    // Another instance may have offered its own first: the stored one is everybody's.
    return readEd25519Key((await readPackKey(deps.db))!);
  }

  return {
    get(): Promise<Ed25519Key> {
      key ??= load();
      // A failed read (database away) is tried afresh on the next request.
      key.catch(() => (key = null));
      return key;
    },
  };
}

export type PackKeySource = ReturnType<typeof createPackKeySource>;
