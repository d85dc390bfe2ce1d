import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionValues } from '../../src/platform/auth/session-values.js';
import { TokenService } from '../../src/platform/auth/tokens.js';
import { hashToken } from '../../src/platform/auth/token-codec.js';
import { loadStaffAccount } from '../../src/modules/auth/staff.repository.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';

const PAGE = '/manage-api/sales/querySalesPage';

let db: TestDb;
let one: TestApp;
/** a second instance on the same database and store (its own Redis connection when REDIS_URL is set) */
let two: TestApp;

beforeAll(async () => {
  db = await openTestDatabase();
  one = await createTestApp({}, { db });
  // With Redis the second instance opens its own connection under the same key prefix, as a second
  // process would; the in-process store can only be shared as the same object.
  two = process.env.REDIS_URL
    ? await createTestApp({ STORE_PREFIX: one.config.storePrefix }, { db })
    : await createTestApp({}, { db, store: one.store });
});
afterAll(async () => {
  await two?.close();
  await one?.close();
  await db?.close();
});

/**
 * What `app` answers `token` once the message of an ended session has had time to arrive: with Redis the
 * drop reaches another instance on its own connection, a moment after the publisher's own reply.
 */
async function settledErrcode(app: TestApp, token: string): Promise<number> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const errcode = (await app.post(PAGE, {}, token)).body.errcode as number;
    if (errcode !== 0 || Date.now() > deadline) return errcode;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const tokensOf = (t: TestApp) => {
  const tokens = new TokenService(t.db, t.store, { accessS: 1800, refreshS: 3600 });
  tokens.registerLoader('admin', loadStaffAccount);
  return tokens;
};

describe('account-wide revocation', () => {
  it('caches nothing for tokens whose row a revocation deleted before they were remembered', async () => {
    const s1 = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    const tokens = tokensOf(one);
    const issued = await tokens.issue(one.db, s1.account, 'manage', null);
    await tokens.revokeAccount('admin', s1.userId);
    expect(await tokens.remember(issued, s1.account, 'manage')).toBe(false);
    expect(await tokens.resolve(issued.accessHash)).toBeNull();
    expect((await one.post(PAGE, {}, issued.accessToken)).body.errcode).toBe(401);
    const again = await tokens.issue(one.db, s1.account, 'manage', null);
    expect(await tokens.remember(again, s1.account, 'manage')).toBe(true);
    expect((await one.post(PAGE, {}, again.accessToken)).body.errcode).toBe(0);
  });

  it('ends every session of the account at once on every instance, refresh tokens included', async () => {
    const s1 = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    const account = s1.account;
    const tokens = tokensOf(one);
    const second = await tokens.issue(one.db, account, 'manage', null);
    await tokens.remember(second, account, 'manage');
    const bystander = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    for (const tok of [s1.token, second.accessToken]) {
      expect((await one.post(PAGE, {}, tok)).body.errcode).toBe(0);
      expect((await two.post(PAGE, {}, tok)).body.errcode).toBe(0);
    }

    expect(await tokens.revokeAccount('admin', s1.userId)).toBe(2);

    for (const tok of [s1.token, second.accessToken]) {
      expect(await settledErrcode(two, tok)).toBe(401);
      expect((await one.post(PAGE, {}, tok)).body.errcode).toBe(401);
    }
    const refresh = await two.post('/manage-api/auth/refreshToken', { refreshToken: s1.refreshToken });
    expect(refresh.body.errcode).toBe(401);
    expect((await two.post(PAGE, {}, bystander.token)).body.errcode).toBe(0);
  });

  it('answers a token used a moment ago from memory, until a session end published by any instance drops it', async () => {
    const s = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    const hash = hashToken(s.token);
    expect((await two.post(PAGE, {}, s.token)).body.errcode).toBe(0);
    // Behind the services' back: neither the store nor the database holds the session any more.
    await one.db.deleteFrom('oauth2_token').where('access_hash', '=', hash).execute();
    await one.store.del(`sess:${hash}`);
    expect((await two.post(PAGE, {}, s.token)).body.errcode).toBe(0);
    // An end of the session through any TokenService tells every instance, this one's own too.
    await tokensOf(one).revoke(hash);
    expect(await settledErrcode(two, s.token)).toBe(401);
    expect((await one.post(PAGE, {}, s.token)).body.errcode).toBe(401);
  });

  it('ends the sessions of every account given in one call, and no other', async () => {
    const given = await Promise.all(
      [1, 2, 3].map(() => staffSession(one, { kind: 'platform', permissions: ['sales:read'] })),
    );
    const bystander = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    for (const s of [...given, bystander]) expect((await two.post(PAGE, {}, s.token)).body.errcode).toBe(0);
    // an id twice and an account without tokens change nothing
    expect(
      await tokensOf(one).revokeAccounts('admin', [...given.map((s) => s.userId), given[0].userId, 999_999_999]),
    ).toBe(3);
    for (const s of given) {
      expect(await settledErrcode(two, s.token)).toBe(401);
      expect((await one.post(PAGE, {}, s.token)).body.errcode).toBe(401);
    }
    expect((await two.post(PAGE, {}, bystander.token)).body.errcode).toBe(0);
    expect(await tokensOf(one).revokeAccounts('admin', [])).toBe(0);
  });

  it('does not let a disabled account rebuild a session the store lost', async () => {
    const s = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    await one.db.updateTable('admin_user').set({ status: 0 }).where('id', '=', s.userId).execute();
    await one.store.del(`sess:${hashToken(s.token)}`);
    expect((await two.post(PAGE, {}, s.token)).body.errcode).toBe(401);
  });
});

describe('expired token rows', () => {
  it('are purged once their refresh token has expired too; live ones stay', async () => {
    const expired = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    const accessOnly = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    const live = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    const past = new Date(Date.now() - 1000);
    const row = (token: string) =>
      one.db.selectFrom('oauth2_token').select('id').where('access_hash', '=', hashToken(token)).executeTakeFirst();
    await one.db
      .updateTable('oauth2_token')
      .set({ access_expires_at: past, refresh_expires_at: past })
      .where('access_hash', '=', hashToken(expired.token))
      .execute();
    await one.db
      .updateTable('oauth2_token')
      .set({ access_expires_at: past })
      .where('access_hash', '=', hashToken(accessOnly.token))
      .execute();

    expect(await tokensOf(one).purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await row(expired.token)).toBeUndefined();
    // its access token expired, its refresh token still works
    expect(await row(accessOnly.token)).toBeDefined();
    expect(
      (await two.post('/manage-api/auth/refreshToken', { refreshToken: accessOnly.refreshToken })).body.errcode,
    ).toBe(0);
    expect((await two.post(PAGE, {}, live.token)).body.errcode).toBe(0);
  });
});

describe('per-session values', () => {
  it('keeps a value for the session across a token refresh, and another session cannot read it', async () => {
    const s = await staffSession(one, { kind: 'platform', permissions: ['sales:read'] });
    const values = new SessionValues(one.store, 3600);
    const resolve = async (token: string) => (await tokensOf(one).resolve(hashToken(token)))!;
    const first = await resolve(s.token);
    await values.set(first, 'smsCode', '123456', 300);

    const refreshed = await two.post('/manage-api/auth/refreshToken', { refreshToken: s.refreshToken });
    expect(refreshed.body.errcode).toBe(0);
    const after = await resolve(refreshed.body.data.accessToken);
    expect(after.sessionId).toBe(first.sessionId);
    expect(await values.get(after, 'smsCode')).toBe('123456');

    const other = await resolve((await staffSession(one, { kind: 'platform' })).token);
    expect(other.sessionId).not.toBe(first.sessionId);
    expect(await values.get(other, 'smsCode')).toBeNull();
    expect(await values.take(after, 'smsCode')).toBe('123456');
    expect(await values.get(after, 'smsCode')).toBeNull();
  });
});

describe('open-channel routes reached with a staff token', () => {
  it("require the route's permission, as on the manage channel", async () => {
    const none = await staffSession(one, { kind: 'platform', permissions: [] });
    const res = await one.post('/open-api/region/queryRegionList', { idList: [320000] }, none.token);
    expect(res.body).toEqual({ errcode: 403, errmsg: 'no permission: region:read is required' });
    const reader = await staffSession(one, { kind: 'platform', permissions: ['region:read'] });
    const ok = await one.post('/open-api/region/queryRegionList', { idList: [320000] }, reader.token);
    expect(ok.body.errcode).toBe(0);
    expect(ok.body.data[0].name).toBe('江苏省');
  });
});
