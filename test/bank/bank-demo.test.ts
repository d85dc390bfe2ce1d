import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BANK_MANAGER_MOBILE, DEMO_BANK_TELLER_MOBILE } from '../../src/seed/demo/bank.js';
import { DEMO_PASSWORD, generateDemoData } from '../../src/seed/demo/index.js';
import { adminUrl } from '../helpers/global-setup.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { newPerson, P, recordingSms, requestCode, type Recorder } from './bank-fixtures.js';

/** The demo data's bank channel works as the README says: its staff log in, activate and read statistics. */

let db: TestDb;
let rec: Recorder;
let t: TestApp;

beforeAll(async () => {
  db = await openTestDatabase();
  const url = process.env.DATABASE_URL
    ? adminUrl(
        process.env.DATABASE_URL,
        (await sql<{ name: string }>`select current_database() as name`.execute(db.db)).rows[0].name,
      )
    : null;
  const made = await generateDemoData(db.database, { scale: 0, seed: 7, databaseUrl: url });
  expect(made.status).toBe('created');
  rec = await recordingSms();
  t = await createTestApp({}, { db, store: rec.store, services: { sms: rec.sms } });
});
afterAll(async () => {
  await t?.close();
  await rec?.store.close();
  await db?.close();
});

async function login(mobile: string): Promise<string> {
  const verifyCode = await requestCode(t, rec, mobile, 'login');
  const res = await t.post(`${P}/bankLogin`, { mobile, password: DEMO_PASSWORD, verifyCode });
  expect(res.body.data?.code, JSON.stringify(res.body)).toBe(200);
  return res.body.data.data.accessToken;
}

describe('demo bank channel', () => {
  it('lets the demo teller activate a pool card and the demo manager see it, ID number whole', async () => {
    const teller = await login(DEMO_BANK_TELLER_MOBILE);
    const person = newPerson();
    const verifyCode = await requestCode(t, rec, person.phone, 'activate', teller);
    const res = await t.post(`${P}/activateBankCard`, { ...person, verifyCode }, teller);
    expect(res.body.data.code).toBe(200);
    expect(res.body.data.data.cardModelName).toBe('惠民年卡');

    const manager = await login(DEMO_BANK_MANAGER_MOBILE);
    const ops = await t.post(`${P}/bankOperatorList`, {}, manager);
    expect(
      ops.body.data.map((o: { operatorName: string; totalCardNum: number }) => [o.operatorName, o.totalCardNum]),
    ).toEqual([
      ['城商行营业部', 500],
      ['城商行西湖支行', 300],
      ['城商行滨江支行', 100],
    ]);
    const stat = await t.post(`${P}/bankStat`, {}, manager);
    expect(stat.body.data.list[0]).toMatchObject({ operatorName: '城商行营业部', totalNum: 1, dayNum: 1 });
    const details = await t.post(`${P}/getActivationDetailList`, {}, manager);
    expect(details.body.data.list[0].userIdno).toBe(person.userIdno);
    const pool = await sql<{
      n: number;
    }>`select count(*)::int as n from card where status = 1 and active_time is null and channel = 6`.execute(db.db);
    expect(pool.rows[0].n).toBe(199);
  });
});
