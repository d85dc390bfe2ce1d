import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m0026 from '../../src/db/migrations/20261127_0026_activation_idno_key.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  activate,
  bankToken,
  createBankChannel,
  createBankUser,
  newIdNumber,
  newPerson,
  newPhone,
  recordingSms,
  type BankChannel,
  type Recorder,
} from './bank-fixtures.js';

/**
 * Migration 0026 on a database that already holds one person activated several times in a channel
 * (what the old (type, number) index let through): it must not fail, must keep every record, and the
 * person stays refused from then on.
 */

let t: TestApp;
let rec: Recorder;
let bank: BankChannel;
let teller: string;

beforeAll(async () => {
  rec = await recordingSms();
  t = await createTestApp({}, { store: rec.store, services: { sms: rec.sms } });
  bank = await createBankChannel(t.db, { pool: 5 });
  teller = await bankToken(
    t,
    await createBankUser(t.db, { businessId: bank.businessId, operatorRowId: bank.operators[0].id }),
  );
});
afterAll(async () => {
  await t?.close();
  await rec?.store.close();
});

/** A record as the service wrote them before migration 0026: the number as typed, no key column. */
async function legacyRecord(c: BankChannel, idType: number, idNo: string): Promise<number> {
  const phone = newPhone();
  const order = await t.db
    .insertInto('channel_order')
    .values({
      channel_info_id: c.channelInfoId,
      operator_id: c.operators[0].id,
      card_model_id: c.cardModelId,
      user_name: 'legacy',
      user_phone: phone,
      user_id_type: idType,
      user_idno: idNo,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const r = await t.db
    .insertInto('activation_record')
    .values({
      channel_info_id: c.channelInfoId,
      operator_id: c.operators[0].id,
      order_id: order.id,
      user_name: 'legacy',
      user_phone: phone,
      user_id_type: idType,
      user_idno: idNo,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

describe('migration 0026 over earlier duplicates', () => {
  it('keeps every record, keys the earliest of each person and refuses that person afterwards', async () => {
    const db = t.db as unknown as Kysely<unknown>;
    await m0026.down(db);
    const passport = `G${newPhone().slice(3)}`;
    const idCard = newIdNumber();
    const ids = {
      passport: await legacyRecord(bank, 2, passport),
      passportLower: await legacyRecord(bank, 2, passport.toLowerCase()),
      passportHyphen: await legacyRecord(bank, 2, `${passport.slice(0, 3)}-${passport.slice(3)}`),
      idCard: await legacyRecord(bank, 1, idCard),
      idCardAsLicence: await legacyRecord(bank, 5, idCard),
      alone: await legacyRecord(bank, 3, 'h1234-5678'),
    };
    await m0026.up(db);

    const rows = await t.db
      .selectFrom('activation_record')
      .select(['id', 'user_idno', 'user_idno_key'])
      .where('channel_info_id', '=', bank.channelInfoId)
      .where('id', 'in', Object.values(ids))
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.id, r.user_idno_key])).toEqual([
      [ids.passport, passport],
      [ids.passportLower, null],
      [ids.passportHyphen, null],
      [ids.idCard, idCard],
      [ids.idCardAsLicence, null],
      [ids.alone, 'H12345678'],
    ]);
    // the records themselves are as they were
    expect(rows.find((r) => r.id === ids.passportLower)!.user_idno).toBe(passport.toLowerCase());

    for (const person of [
      { userIdno: passport.toLowerCase(), userIdType: 2 },
      { userIdno: idCard, userIdType: 6 },
      { userIdno: 'H1234-5678', userIdType: 3 },
    ]) {
      const { res } = await activate(t, rec, teller, newPerson(person));
      expect(res.body.data, JSON.stringify(person)).toMatchObject({
        code: 504,
        msg: 'this ID number has already activated a card in this channel',
      });
    }
    expect((await activate(t, rec, teller)).res.body.data.code).toBe(200);
  });
});
