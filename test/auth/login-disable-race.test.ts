import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createStaff, requestCaptcha, sleep } from '../helpers/platform-fixtures.js';

/**
 * Logins racing a disable of the account (QA auth #2): the login locks the account row before it
 * reads it, so the disable either waits for the login and then revokes its token, or commits first
 * and the login is refused. Either way no session of the disabled account is left working.
 * (The verifier's twin is test/checker/checker-login-race.test.ts.)
 */
let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.loginStaff()).accessToken;
});
afterAll(() => t?.close());

const ROUNDS = 6;
const LOGINS = 10;

describe('staff logins racing a disable', () => {
  it('leave no working token of the disabled user', async () => {
    const u = await createStaff(t.db);
    let succeeded = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const addresses = Array.from({ length: LOGINS }, (_, i) => `10.91.${round + 10 * (Date.now() % 20)}.${i + 1}`);
      const keys = await Promise.all(addresses.map((remoteAddress) => requestCaptcha(t, { remoteAddress })));
      const logins = addresses.map((remoteAddress, i) =>
        t.app
          .inject({
            method: 'POST',
            url: '/manage-api/auth/login',
            remoteAddress,
            payload: { username: u.username, password: u.password, code: keys[i]!.code, uuid: keys[i]!.key },
          })
          .then((r) => r.json() as { errcode: number; data?: { accessToken: string } }),
      );
      // The last round disables only once a login got in, so the race is run whatever the machine's
      // load (the argon2 checks of ten logins at once can outlast every fixed delay).
      await (round === ROUNDS - 1 ? Promise.race(logins) : sleep(round * 30));
      expect(
        (await t.post('/manage-api/system/user/updateUserStatus', { id: u.id, status: 0 }, admin)).body.errcode,
      ).toBe(0);
      const answers = await Promise.all(logins);
      // in, disabled, or in and revoked before its session was cached (401 "changed while logging in")
      expect(answers.filter((a) => ![0, 1_002_000_001, 401].includes(a.errcode))).toEqual([]);
      const tokens = answers.flatMap((a) => (a.errcode === 0 ? [a.data!.accessToken] : []));
      succeeded += tokens.length;

      const rows = await t.db
        .selectFrom('oauth2_token')
        .select('id')
        .where('account_kind', '=', 'admin')
        .where('account_id', '=', u.id)
        .execute();
      expect(rows).toEqual([]);
      for (const token of tokens) expect((await t.post('/manage-api/auth/logout', {}, token)).body.errcode).toBe(401);

      expect(
        (await t.post('/manage-api/system/user/updateUserStatus', { id: u.id, status: 1 }, admin)).body.errcode,
      ).toBe(0);
    }
    // the race was run at all: some logins got in before the disable
    expect(succeeded).toBeGreaterThan(0);
  });
});
