import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createStaff, requestCaptcha } from '../helpers/platform-fixtures.js';
import { createChecker } from '../helpers/factories.js';
import { FAILURES_BEFORE_LOCK } from '../../src/platform/auth/login-guard.js';

/**
 * A burst of parallel logins for one name from one address (QA auth #1): each attempt takes one of the
 * pair's five slots before its password is checked, so at most five passwords are checked, and the
 * right password sent with the burst is refused once the pair has locked.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const BAD = 1_002_000_000;
let net = 0;
const freshAddress = () => `10.77.${++net}.${Date.now() % 200}`;
const wrongCount = (rows: { errcode: number }[]) => rows.filter((r) => r.errcode === BAD).length;
const failureLog = (kind: string, id: number) =>
  t.db
    .selectFrom('login_log')
    .select('errcode')
    .where('account_kind', '=', kind)
    .where('account_id', '=', id)
    .where('success', '=', false)
    .execute();

/** 14 wrong passwords and, last, the right one, all at once. */
const burst = <T>(send: (password: string, i: number) => Promise<T>, right: string) =>
  Promise.all(Array.from({ length: 15 }, (_, i) => send(i === 14 ? right : `Wrong@${i}`, i)));

describe('a burst of parallel logins from one address', () => {
  it('checks at most five staff passwords and refuses the right one once locked', async () => {
    const u = await createStaff(t.db);
    const address = freshAddress();
    const keys = await Promise.all(Array.from({ length: 15 }, () => requestCaptcha(t, { remoteAddress: address })));
    const answers = await burst(async (password, i) => {
      const { key, code } = keys[i]!;
      const res = await t.app.inject({
        method: 'POST',
        url: '/manage-api/auth/login',
        remoteAddress: address,
        payload: { username: u.username, password, code, uuid: key },
      });
      return res.json() as { errcode: number };
    }, u.password);

    const codes = answers.map((a) => a.errcode);
    expect(codes).not.toContain(0);
    // a checked wrong password answers BAD, or 423 when it is the fifth
    expect(codes.filter((c) => c === BAD).length).toBeLessThanOrEqual(FAILURES_BEFORE_LOCK - 1);
    expect(codes.filter((c) => c !== BAD && c !== 423)).toEqual([]);
    expect(wrongCount(await failureLog('admin', u.id))).toBeLessThanOrEqual(FAILURES_BEFORE_LOCK - 1);
    // the pair stays locked
    const { key, code } = await requestCaptcha(t, { remoteAddress: address });
    const again = await t.app.inject({
      method: 'POST',
      url: '/manage-api/auth/login',
      remoteAddress: address,
      payload: { username: u.username, password: u.password, code, uuid: key },
    });
    expect(again.json().errcode).toBe(423);
  });

  it('checks at most five verifier passwords and refuses the right one once locked', async () => {
    const checker = await createChecker(t.db);
    const address = freshAddress();
    const login = (password: string) =>
      t.app
        .inject({
          method: 'POST',
          url: '/app-api/auth/checkerLogin',
          remoteAddress: address,
          payload: { mobile: checker.mobile, password },
        })
        .then((r) => r.json() as { errcode: number });
    const codes = (await burst((password) => login(password), checker.password)).map((a) => a.errcode);
    expect(codes).not.toContain(0);
    expect(codes.filter((c) => c === BAD).length).toBeLessThanOrEqual(FAILURES_BEFORE_LOCK - 1);
    expect(codes.filter((c) => c !== BAD && c !== 423)).toEqual([]);
    expect(wrongCount(await failureLog('checker', checker.id))).toBeLessThanOrEqual(FAILURES_BEFORE_LOCK - 1);
    expect((await login(checker.password)).errcode).toBe(423);
  });

  it('still lets parallel right passwords in, and one clears the failures before it', async () => {
    const checker = await createChecker(t.db);
    const address = freshAddress();
    const login = (password: string) =>
      t.app
        .inject({
          method: 'POST',
          url: '/app-api/auth/checkerLogin',
          remoteAddress: address,
          payload: { mobile: checker.mobile, password },
        })
        .then((r) => r.json() as { errcode: number });
    for (let i = 0; i < FAILURES_BEFORE_LOCK - 1; i++) expect((await login('wrong')).errcode).toBe(BAD);
    expect((await login(checker.password)).errcode).toBe(0);
    const codes = (await Promise.all(Array.from({ length: FAILURES_BEFORE_LOCK }, () => login(checker.password)))).map(
      (a) => a.errcode,
    );
    expect(codes).toEqual(Array(FAILURES_BEFORE_LOCK).fill(0));
  });
});
