import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomMobile } from '../helpers/factories.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createMemberTestApp, idCardNumber, memberSession, type MemberTestApp } from '../member/member-fixtures.js';

/**
 * QA defect 1: a member's contact put its own photo under someone else's identity number, deleting the
 * face staff enrolled at bindCard (or another member's), and checked in on that person's card with it.
 */
const C = '/manage-api/card';
const TAKEN = { errcode: 1003000002, errmsg: 'a face is already enrolled for this identity number by someone else: the holder can change it at a service desk' };

let m: MemberTestApp;
let staff: StaffSession;
let model: number;

beforeAll(async () => {
  m = await createMemberTestApp();
  staff = await staffSession(m.t, { kind: 'platform', permissions: ['cardModel:read', 'cardModel:write', 'card:read', 'card:write'] });
  const res = await m.t.post('/manage-api/cardModel/addCardModel', { name: 'Face pass', price: 100, validityMonths: 12 }, staff.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  model = res.body.data.id;
});
afterAll(() => m?.close());

async function activatedCard(): Promise<string> {
  const batch = await m.t.post(`${C}/generateCardBatch`, { cardModelId: model, count: 1, medium: 1 }, staff.token);
  expect(batch.body.errcode, batch.body.errmsg).toBe(0);
  const row = await m.t.db.selectFrom('card').select('card_number').where('batch_id', '=', batch.body.data.id).executeTakeFirstOrThrow();
  const res = await m.t.post(`${C}/activateCard`, { cardNumber: row.card_number, channel: 1 }, staff.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return row.card_number;
}

const bindCard = (cardNumber: string, idNo: string, facePhoto: string) =>
  m.t.post(`${C}/bindCard`, { cardNumber, name: 'Victim', phone: randomMobile(), idType: 1, idNo, facePhoto }, staff.token);
const contact = (token: string, op: 'add' | 'update', body: Record<string, unknown>) =>
  m.t.post(`/mp-api/memberContacts/${op}MemberContacts`, { name: 'Someone', phone: randomMobile(), ...body }, token);
const whoIs = async (photo: string) => (await m.face.search(photo))?.personId ?? null;
const liveRecords = (personId: string) =>
  m.t.db.selectFrom('member_face').select(['member_id', 'contact_id']).where('person_id', '=', personId).where('is_deleted', '=', false).execute();

describe('faces of card holders and members\' contacts', () => {
  it('refuses a member\'s contact under the identity number of a holder whose face staff enrolled, keeping the holder\'s face', async () => {
    const idNo = idCardNumber();
    const holderPhoto = m.photo();
    expect((await bindCard(await activatedCard(), idNo, holderPhoto)).body.errcode).toBe(0);
    const attacker = await memberSession(m.t);
    const attackerPhoto = m.photo();

    expect((await contact(attacker.token, 'add', { identityNo: idNo, facePhoto: attackerPhoto })).body).toEqual(TAKEN);
    expect(await whoIs(holderPhoto)).toBe(idNo);
    expect(await whoIs(attackerPhoto)).toBeNull();
    expect(await liveRecords(idNo)).toEqual([]);
    const contacts = await m.t.db.selectFrom('member_contacts').select('id').where('member_id', '=', attacker.id).execute();
    expect(contacts).toEqual([]);
  });

  it('lets staff at bindCard replace a face a member\'s contact enrolled first, which that member then cannot take back', async () => {
    const idNo = idCardNumber();
    const attacker = await memberSession(m.t);
    const early = m.photo();
    expect((await contact(attacker.token, 'add', { identityNo: idNo, facePhoto: early })).body.errcode).toBe(0);
    const mine = await m.t.db.selectFrom('member_contacts').select('id').where('member_id', '=', attacker.id).executeTakeFirstOrThrow();
    expect(await liveRecords(idNo)).toEqual([{ member_id: attacker.id, contact_id: mine.id }]);

    const holderPhoto = m.photo();
    expect((await bindCard(await activatedCard(), idNo, holderPhoto)).body.errcode).toBe(0);
    expect(await whoIs(holderPhoto)).toBe(idNo);
    expect(await whoIs(early)).toBeNull();
    // The member's record no longer stands for the enrolled face.
    expect(await liveRecords(idNo)).toEqual([]);

    const again = m.photo();
    expect((await contact(attacker.token, 'update', { id: mine.id, identityNo: idNo, facePhoto: again })).body).toEqual(TAKEN);
    expect(await whoIs(holderPhoto)).toBe(idNo);
    expect(await whoIs(again)).toBeNull();
  });

  it('still lets staff re-enrol a holder\'s face at bindCard', async () => {
    const idNo = idCardNumber();
    const first = m.photo();
    expect((await bindCard(await activatedCard(), idNo, first)).body.errcode).toBe(0);
    const second = m.photo();
    expect((await bindCard(await activatedCard(), idNo, second)).body.errcode).toBe(0);
    expect(await whoIs(second)).toBe(idNo);
    expect(await whoIs(first)).toBeNull();
  });
});
