import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteQueryNode, type KyselyPlugin, type QueryId } from 'kysely';
import { TokenService } from '../../src/platform/auth/tokens.js';
import { AppError } from '../../src/platform/errors.js';
import { loadStaffAccount } from '../../src/modules/auth/staff.repository.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createStaff, sleep } from '../helpers/platform-fixtures.js';

/**
 * A token refresh racing a disable of the account (the login race's twin, test/auth/login-disable-race):
 * the refresh has read the account while it was enabled, the disable commits and revokes its sessions,
 * then the refresh commits its new token. A refresh takes the account's token lock before it reads the
 * account and revokeAccount takes it before it deletes, so the revocation waits and then deletes the
 * new row too. (On PostgreSQL it had left the new row, so the disabled user kept a working session.)
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

// PGlite runs one transaction at a time, so the disable cannot commit inside the refresh there (and
// this test's disable would wait for the held refresh forever): PostgreSQL only.
describe.skipIf(!process.env.DATABASE_URL)('a token refresh racing a disable', () => {
  it('leaves no token of the disabled user, whatever commits first', async () => {
    const u = await createStaff(t.db);
    let read!: () => void;
    const accountRead = new Promise<void>((resolve) => (read = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tokens = new TokenService(t.db, t.store, { accessS: 1800, refreshS: 3600 });
    // The account as the refresh reads it, held there until the disable and its revocation are under way.
    tokens.registerLoader('admin', async (db, id) => {
      const account = await loadStaffAccount(db, id);
      read();
      await held;
      return account;
    });
    const account = (await loadStaffAccount(t.db, u.id))!;
    const first = await tokens.issue(t.db, account, 'manage', null);

    const refreshing = tokens.refresh(first.refreshToken, 'manage', null);
    await accountRead;
    await t.db.updateTable('admin_user').set({ status: 0 }).where('id', '=', u.id).execute();
    const revoking = tokens.revokeAccount('admin', u.id);
    await sleep(100);
    release();
    // The revocation's delete may land before the refresh's post-commit check of its new row (the
    // refresh is then refused, 401) or after it (the refresh answers a token that no longer resolves).
    const refreshed = await refreshing.catch((e: unknown) => e);
    await revoking;

    const rows = await t.db
      .selectFrom('oauth2_token')
      .select('access_hash')
      .where('account_kind', '=', 'admin')
      .where('account_id', '=', u.id)
      .execute();
    expect(rows).toEqual([]);
    if (refreshed instanceof AppError) expect(refreshed.errcode).toBe(401);
    else expect(await tokens.resolve((refreshed as Awaited<typeof refreshing>).issued.accessHash)).toBeNull();
  });

  it('does not deadlock with a revocation that comes while the refresh holds its token row', async () => {
    const u = await createStaff(t.db);
    const account = (await loadStaffAccount(t.db, u.id))!;
    // Holds the refresh just after it took its token row (the DELETE … RETURNING of the pair), with the
    // row locked by its transaction, while the account is revoked.
    let taken!: () => void;
    const rowTaken = new Promise<void>((resolve) => (taken = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const deletes = new Set<QueryId>();
    const pauseAfterTake: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        if (DeleteQueryNode.is(node)) deletes.add(queryId);
        return node;
      },
      transformResult: async ({ result, queryId }) => {
        if (deletes.delete(queryId) && result.rows.length > 0) {
          taken();
          await held;
        }
        return result;
      },
    };
    const refreshing = new TokenService(t.db.withPlugin(pauseAfterTake), t.store, { accessS: 1800, refreshS: 3600 });
    refreshing.registerLoader('admin', loadStaffAccount);
    const revoking = new TokenService(t.db, t.store, { accessS: 1800, refreshS: 3600 });
    const first = await revoking.issue(t.db, account, 'manage', null);

    const refresh = refreshing.refresh(first.refreshToken, 'manage', null).catch((e: unknown) => e);
    await rowTaken;
    const revoke = revoking.revokeAccount('admin', u.id).catch((e: unknown) => e);
    await sleep(100);
    release();
    const [refreshed, revoked] = await Promise.all([refresh, revoke]);
    // Before, the revocation waited for the row and the refresh for the account's lock: PostgreSQL broke
    // the deadlock by failing one of them (40P01), often the revocation, leaving the account's tokens.
    expect(revoked).toBe(1);
    // the refresh committed first; its post-commit check may already find its new row revoked (401)
    if (refreshed instanceof Error)
      expect([refreshed.constructor.name, (refreshed as AppError).errcode]).toEqual(['AppError', 401]);
    const rows = await t.db
      .selectFrom('oauth2_token')
      .select('id')
      .where('account_kind', '=', 'admin')
      .where('account_id', '=', u.id)
      .execute();
    expect(rows).toEqual([]);
  });
});
