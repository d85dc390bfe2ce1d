import type { Executor } from '../../platform/db/executor.js';

/**
 * The stored signing key of offline packs (migration 0034): the first instance to need it offers one,
 * and whichever offer got in first is the key of every instance.
 */
export async function offerPackKey(db: Executor, keyId: string, pkcs8: string): Promise<void> {
  await db
    .insertInto('offline_pack_key')
    .values({ id: 1, key_id: keyId, private_key: pkcs8 })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function readPackKey(db: Executor): Promise<string | null> {
  const r = await db.selectFrom('offline_pack_key').select('private_key').where('id', '=', 1).executeTakeFirst();
  return r?.private_key ?? null;
}
