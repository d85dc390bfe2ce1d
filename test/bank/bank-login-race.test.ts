import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/platform/auth/password.js';
import type { Trx } from '../../src/platform/db/transaction.js';
import { sleep } from '../helpers/platform-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  createBankChannel,
  createBankUser,
  P,
  recordingSms,
  requestCode,
  type BankStaff,
  type Recorder,
} from './bank-fixtures.js';

/**
 * A bankLogin whose password was checked, and whose user then changes before the login transaction
 * locks the row, is held as staff and verifier logins are (docs/adr/0032-a-login-locks-what-its-session-is-built-from.md): a new password
 * refuses it, a disable refuses it and logs the failure. The test holds the bank_user row locked, so
 * the login waits at its lock while the change commits; PostgreSQL only (PGlite runs one transaction
 * at a time, so the login could not get that far while the row is held).
 */
let t: TestApp;
let rec: Recorder;
beforeAll(async () => {
  rec = await recordingSms();
  t = await createTestApp({}, { store: rec.store, services: { sms: rec.sms } });
});
afterAll(async () => {
  await t?.close();
  await rec?.store.close();
});

async function newTeller(): Promise<BankStaff> {
  const bank = await createBankChannel(t.db, { pool: 0 });
  return createBankUser(t.db, { businessId: bank.businessId, operatorRowId: bank.operators[0]!.id });
}

type Body = { errcode: number; errmsg: string; data?: { code: number } };

/** Starts the user's login while its row is locked, makes the change once the login waits for the row, commits, and answers the login. */
async function loginWhile(u: BankStaff, change: (trx: Trx) => Promise<unknown>): Promise<Body> {
  const verifyCode = await requestCode(t, rec, u.mobile, 'login');
  const { answer } = await t.db.transaction().execute(async (trx) => {
    await trx.selectFrom('bank_user').select('id').where('id', '=', u.id).forUpdate().execute();
    const answer = t
      .post(`${P}/bankLogin`, { mobile: u.mobile, password: u.password, verifyCode })
      .then((r) => r.body as Body);
    for (let i = 0; i < 200 && !(await waitingForLock()); i++) await sleep(25);
    await change(trx);
    return { answer };
  });
  return answer;
}

async function waitingForLock(): Promise<boolean> {
  const r = await sql<{
    n: number;
  }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
    t.db,
  );
  return r.rows[0]!.n > 0;
}

const logsOf = (u: BankStaff) =>
  t.db
    .selectFrom('login_log')
    .select(['account_id', 'success', 'errcode'])
    .where('account_kind', '=', 'bank')
    .where('username', '=', u.mobile)
    .orderBy('id')
    .execute();

describe.skipIf(!process.env.DATABASE_URL)('a bank login whose user changes while it waits for the row', () => {
  it('is refused as disabled, and logged, when the user was disabled', async () => {
    const u = await newTeller();
    const body = await loginWhile(u, (trx) =>
      trx.updateTable('bank_user').set({ status: 0 }).where('id', '=', u.id).execute(),
    );
    expect(body).toEqual({ errcode: 1_002_000_001, errmsg: 'this account is disabled' });
    expect(await logsOf(u)).toEqual([{ account_id: u.id, success: false, errcode: 1_002_000_001 }]);
    expect(
      await t.db
        .selectFrom('oauth2_token')
        .select('id')
        .where('account_kind', '=', 'bank')
        .where('account_id', '=', u.id)
        .execute(),
    ).toEqual([]);
  });

  it('is refused as a wrong password when a new password was set', async () => {
    const u = await newTeller();
    const newHash = await hashPassword('Other@Pass2026');
    const body = await loginWhile(u, (trx) =>
      trx.updateTable('bank_user').set({ password_hash: newHash }).where('id', '=', u.id).execute(),
    );
    expect(body).toEqual({ errcode: 1_002_000_000, errmsg: 'wrong username or password' });
    expect(await logsOf(u)).toEqual([{ account_id: u.id, success: false, errcode: 1_002_000_000 }]);
    expect(
      await t.db
        .selectFrom('oauth2_token')
        .select('id')
        .where('account_kind', '=', 'bank')
        .where('account_id', '=', u.id)
        .execute(),
    ).toEqual([]);
  });
});
