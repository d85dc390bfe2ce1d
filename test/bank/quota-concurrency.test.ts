import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import {
  bankToken,
  createBankChannel,
  createBankUser,
  newPerson,
  P,
  recordingSms,
  type BankChannel,
  type Recorder,
} from './bank-fixtures.js';
import { checkQuotaRun } from './quota-check.js';

/**
 * The headline rule in process: 200 activations at once against a quota of 50, through two app
 * instances on one database and one store (Redis when REDIS_URL is set). The same run across two
 * server processes is in test/cluster/cluster.process.test.ts.
 */

const ATTEMPTS = 200;
const QUOTA = 50;

let db: TestDb;
let rec: Recorder;
let one: TestApp;
let two: TestApp;
let bank: BankChannel;

beforeAll(async () => {
  db = await openTestDatabase();
  rec = await recordingSms();
  one = await createTestApp({}, { db, store: rec.store, services: { sms: rec.sms } });
  two = await createTestApp({}, { db, store: rec.store, services: { sms: rec.sms } });
  bank = await createBankChannel(db.db, { operators: [{ total: QUOTA, day: ATTEMPTS }], pool: QUOTA + 20 });
});
afterAll(async () => {
  await two?.close();
  await one?.close();
  await rec?.store.close();
  await db?.close();
});

describe('operator quota under concurrency', () => {
  it(`lets exactly ${QUOTA} of ${ATTEMPTS} concurrent activations through two instances succeed`, async () => {
    const user = await createBankUser(db.db, { businessId: bank.businessId, operatorRowId: bank.operators[0].id });
    const token = await bankToken(one, user);
    const people = Array.from({ length: ATTEMPTS }, () => newPerson());
    // Codes are requested through one instance and checked by either: they live in the shared store.
    const codes: string[] = [];
    for (const p of people) {
      const res = await one.post(`${P}/sendSmsCode`, { phone: p.phone, purpose: 'activate' }, token);
      expect(res.body.errcode, res.body.errmsg).toBe(0);
      codes.push(rec.codeFor(p.phone));
    }
    const started = performance.now();
    const answers = await Promise.all(
      people.map((p, i) => (i % 2 ? two : one).post(`${P}/activateBankCard`, { ...p, verifyCode: codes[i] }, token)),
    );
    console.info(
      `[bank quota] ${ATTEMPTS} concurrent activations through two in-process instances answered in ${Math.round(performance.now() - started)} ms`,
    );
    const outcome = answers.map((a) =>
      a.body.errcode === 0 ? a.body.data.code : `errcode ${a.body.errcode}: ${a.body.errmsg}`,
    );
    await checkQuotaRun(db.db, bank, outcome, { attempts: ATTEMPTS, quota: QUOTA });
  });
});
