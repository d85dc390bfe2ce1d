import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createChecker, createMerchant } from '../helpers/factories.js';
import { sleep } from '../helpers/platform-fixtures.js';

/**
 * Verifier logins racing a disable of the verifier, or of its merchant (QA auth #2): the login locks
 * the verifier and merchant rows before reading them, so no session of the disabled account is left
 * working. The staff twin is test/auth/login-disable-race.test.ts.
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

async function race(mobile: string, password: string, round: number, disable: () => Promise<void>): Promise<string[]> {
  const logins = Array.from({ length: LOGINS }, (_, i) =>
    t.app
      .inject({
        method: 'POST',
        url: '/app-api/auth/checkerLogin',
        remoteAddress: `10.92.${round + 10 * (Date.now() % 20)}.${i + 1}`,
        payload: { mobile, password },
      })
      .then((r) => r.json() as { errcode: number; data?: { accessToken: string } }),
  );
  // The last round disables only once a login got in, so the race is run whatever the machine's load
  // (the argon2 checks of ten logins at once can outlast every fixed delay).
  await (round === ROUNDS - 1 ? Promise.race(logins) : sleep(round * 30));
  await disable();
  const answers = await Promise.all(logins);
  // in, disabled, or in and revoked before its session was cached (401 "changed while logging in")
  expect(answers.filter((a) => ![0, 1_002_000_001, 401].includes(a.errcode))).toEqual([]);
  return answers.flatMap((a) => (a.errcode === 0 ? [a.data!.accessToken] : []));
}

async function expectNoWorkingToken(checkerId: number, tokens: string[]) {
  const rows = await t.db
    .selectFrom('oauth2_token')
    .select('id')
    .where('account_kind', '=', 'checker')
    .where('account_id', '=', checkerId)
    .execute();
  expect(rows).toEqual([]);
  for (const token of tokens) expect((await t.post('/app-api/auth/checkerLogout', {}, token)).body.errcode).toBe(401);
}

describe('verifier logins racing a disable', () => {
  it('leave no working token of the disabled verifier', async () => {
    const checker = await createChecker(t.db);
    let succeeded = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const tokens = await race(checker.mobile, checker.password, round, async () => {
        expect(
          (await t.post('/manage-api/checker/updateCheckerStatus', { id: checker.id, status: 0 }, admin)).body.errcode,
        ).toBe(0);
      });
      succeeded += tokens.length;
      await expectNoWorkingToken(checker.id, tokens);
      expect(
        (await t.post('/manage-api/checker/updateCheckerStatus', { id: checker.id, status: 1 }, admin)).body.errcode,
      ).toBe(0);
    }
    expect(succeeded).toBeGreaterThan(0);
  });

  it('leave no working token when its merchant is disabled', async () => {
    const merchantId = await createMerchant(t.db);
    const checker = await createChecker(t.db, { merchant_id: merchantId });
    let succeeded = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const tokens = await race(checker.mobile, checker.password, round, async () => {
        expect(
          (await t.post('/manage-api/merchant/updateMerchantStatus', { id: merchantId, status: 0 }, admin)).body
            .errcode,
        ).toBe(0);
      });
      succeeded += tokens.length;
      await expectNoWorkingToken(checker.id, tokens);
      expect(
        (await t.post('/manage-api/merchant/updateMerchantStatus', { id: merchantId, status: 1 }, admin)).body.errcode,
      ).toBe(0);
    }
    expect(succeeded).toBeGreaterThan(0);
  });
});
