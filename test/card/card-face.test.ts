import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomMobile } from '../helpers/factories.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { enrolHolderFace } from '../../src/modules/member/contact-face.js';
import {
  createMemberTestApp,
  idCardNumber,
  memberSession,
  type FaceHook,
  type MemberTestApp,
} from '../member/member-fixtures.js';

/**
 * QA defect 1: a member's contact put its own photo under someone else's identity number, deleting the
 * face staff enrolled at bindCard (or another member's), and checked in on that person's card with it.
 * Then the same through a race: staff enrolling at bindCard in the middle of a member's enrolment.
 */
const C = '/manage-api/card';
const TAKEN = {
  errcode: 1003000002,
  errmsg:
    'a face is already enrolled for this identity number by someone else: the holder can change it at a service desk',
};
const BUSY = {
  errcode: 1003000003,
  errmsg: 'a face for this identity number is being enrolled right now, please try again in a moment',
};

let m: MemberTestApp;
let staff: StaffSession;
let model: number;
/** the store's own setIfAbsent, put back after a test that watched it */
let setIfAbsent: MemberTestApp['store']['setIfAbsent'];

beforeAll(async () => {
  m = await createMemberTestApp();
  setIfAbsent = m.store.setIfAbsent;
  staff = await staffSession(m.t, {
    kind: 'platform',
    permissions: ['cardModel:read', 'cardModel:write', 'card:read', 'card:write'],
  });
  const res = await m.t.post(
    '/manage-api/cardModel/addCardModel',
    { name: 'Face pass', price: 100, validityMonths: 12 },
    staff.token,
  );
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  model = res.body.data.id;
});
afterEach(() => {
  m.faceHook.after = null;
  m.store.setIfAbsent = setIfAbsent;
});
afterAll(() => m?.close());

async function activatedCard(): Promise<string> {
  const batch = await m.t.post(`${C}/generateCardBatch`, { cardModelId: model, count: 1, medium: 1 }, staff.token);
  expect(batch.body.errcode, batch.body.errmsg).toBe(0);
  const row = await m.t.db
    .selectFrom('card')
    .select('card_number')
    .where('batch_id', '=', batch.body.data.id)
    .executeTakeFirstOrThrow();
  const res = await m.t.post(`${C}/activateCard`, { cardNumber: row.card_number, channel: 1 }, staff.token);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return row.card_number;
}

const bindCard = (cardNumber: string, idNo: string, facePhoto: string) =>
  m.t.post(
    `${C}/bindCard`,
    { cardNumber, name: 'Victim', phone: randomMobile(), idType: 1, idNo, facePhoto },
    staff.token,
  );
const contact = (token: string, op: 'add' | 'update', body: Record<string, unknown>) =>
  m.t.post(`/mp-api/memberContacts/${op}MemberContacts`, { name: 'Someone', phone: randomMobile(), ...body }, token);
const whoIs = async (photo: string) => (await m.face.search(photo))?.personId ?? null;
const liveRecords = (personId: string) =>
  m.t.db
    .selectFrom('member_face')
    .select(['member_id', 'contact_id'])
    .where('person_id', '=', personId)
    .where('is_deleted', '=', false)
    .execute();

describe("faces of card holders and members' contacts", () => {
  it("refuses a member's contact under the identity number of a holder whose face staff enrolled, keeping the holder's face", async () => {
    const idNo = idCardNumber();
    const holderPhoto = m.photo();
    expect((await bindCard(await activatedCard(), idNo, holderPhoto)).body.errcode).toBe(0);
    const attacker = await memberSession(m.t);
    const attackerPhoto = m.photo();

    expect((await contact(attacker.token, 'add', { identityNo: idNo, facePhoto: attackerPhoto })).body).toEqual(TAKEN);
    expect(await whoIs(holderPhoto)).toBe(idNo);
    expect(await whoIs(attackerPhoto)).toBeNull();
    expect(await liveRecords(idNo)).toEqual([]);
    const contacts = await m.t.db
      .selectFrom('member_contacts')
      .select('id')
      .where('member_id', '=', attacker.id)
      .execute();
    expect(contacts).toEqual([]);
  });

  it("lets staff at bindCard replace a face a member's contact enrolled first, which that member then cannot take back", async () => {
    const idNo = idCardNumber();
    const attacker = await memberSession(m.t);
    const early = m.photo();
    expect((await contact(attacker.token, 'add', { identityNo: idNo, facePhoto: early })).body.errcode).toBe(0);
    const mine = await m.t.db
      .selectFrom('member_contacts')
      .select('id')
      .where('member_id', '=', attacker.id)
      .executeTakeFirstOrThrow();
    expect(await liveRecords(idNo)).toEqual([{ member_id: attacker.id, contact_id: mine.id }]);

    const holderPhoto = m.photo();
    expect((await bindCard(await activatedCard(), idNo, holderPhoto)).body.errcode).toBe(0);
    expect(await whoIs(holderPhoto)).toBe(idNo);
    expect(await whoIs(early)).toBeNull();
    // The member's record no longer stands for the enrolled face.
    expect(await liveRecords(idNo)).toEqual([]);

    const again = m.photo();
    expect((await contact(attacker.token, 'update', { id: mine.id, identityNo: idNo, facePhoto: again })).body).toEqual(
      TAKEN,
    );
    expect(await whoIs(holderPhoto)).toBe(idNo);
    expect(await whoIs(again)).toBeNull();
  });

  it("still lets staff re-enrol a holder's face at bindCard", async () => {
    const idNo = idCardNumber();
    const first = m.photo();
    expect((await bindCard(await activatedCard(), idNo, first)).body.errcode).toBe(0);
    const second = m.photo();
    expect((await bindCard(await activatedCard(), idNo, second)).body.errcode).toBe(0);
    expect(await whoIs(second)).toBe(idNo);
    expect(await whoIs(first)).toBeNull();
  });
});

/** Holds the first face call `call` on `arg` after it succeeded, until released. */
function pauseAfter(call: Parameters<FaceHook>[0], arg: string) {
  let reached!: () => void;
  let release!: () => void;
  const atPause = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  m.faceHook.after = async (c, a) => {
    if (c !== call || a !== arg) return;
    m.faceHook.after = null;
    reached();
    await released;
  };
  return { atPause, release };
}

/** Resolves once a request was refused the face enrolment lock of `personId` (staff is then waiting for it). */
function lockRefused(personId: string): Promise<void> {
  const original = m.store.setIfAbsent;
  return new Promise((resolve) => {
    m.store.setIfAbsent = async (key, value, ttl) => {
      const set = await original(key, value, ttl);
      if (!set && key === `face:enrol:${personId}`) {
        m.store.setIfAbsent = original;
        resolve();
      }
      return set;
    };
  });
}

/**
 * Runs `member` up to the pause and binds the card in it: staff's bindCard waits for the member's
 * enrolment of the identity number, the member goes on once staff is waiting, and staff binds after it.
 */
async function bindDuring(
  pause: ReturnType<typeof pauseAfter>,
  member: () => Promise<{ body: { errcode: number } }>,
  idNo: string,
  holderPhoto: string,
  meanwhile?: () => Promise<void>,
) {
  const memberDone = member();
  await pause.atPause;
  await meanwhile?.();
  const card = await activatedCard();
  const staffWaiting = lockRefused(idNo);
  const during = bindCard(card, idNo, holderPhoto);
  await Promise.race([staffWaiting, during]);
  pause.release();
  const memberAnswer = (await memberDone).body;
  const staffAnswer = (await during).body;
  expect(staffAnswer.errcode, staffAnswer.errmsg).toBe(0);
  return memberAnswer;
}

/** Staff's face is enrolled, no member holds a record under the id, and a member's contact cannot replace it. */
async function expectStaffFaceKept(idNo: string, holderPhoto: string, member: { token: string }, contactId: number) {
  expect(await whoIs(holderPhoto)).toBe(idNo);
  expect(await liveRecords(idNo)).toEqual([]);
  const again = m.photo();
  expect((await contact(member.token, 'update', { id: contactId, identityNo: idNo, facePhoto: again })).body).toEqual(
    TAKEN,
  );
  expect(await whoIs(holderPhoto)).toBe(idNo);
  expect(await whoIs(again)).toBeNull();
}

/** The member's one contact (each case below adds exactly one). */
const onlyContactOf = (memberId: number) =>
  m.t.db.selectFrom('member_contacts').select('id').where('member_id', '=', memberId).executeTakeFirstOrThrow();

// Each case pauses a member's request at one step of its face sequence and binds the card in that pause:
// staff waits for the member's lock, released within the bound, and whatever the step, staff's face
// ends up enrolled with no member's record under the identity number.
describe("bindCard racing a member's contact for the same identity number", () => {
  it("does not leave the member a record of the face staff enrolled while the member's contact was being written", async () => {
    const idNo = idCardNumber();
    const member = await memberSession(m.t);
    const memberPhoto = m.photo();
    const holderPhoto = m.photo();

    const answer = await bindDuring(
      pauseAfter('createPerson', memberPhoto),
      () => contact(member.token, 'add', { identityNo: idNo, facePhoto: memberPhoto }),
      idNo,
      holderPhoto,
    );

    expect(answer.errcode).toBe(0);
    const mine = await onlyContactOf(member.id);
    await expectStaffFaceKept(idNo, holderPhoto, member, mine.id);
  });

  it('does not let a member re-enrolling its own face delete the face staff enrolled after the member read its records', async () => {
    const idNo = idCardNumber();
    const member = await memberSession(m.t);
    const first = m.photo();
    expect((await contact(member.token, 'add', { identityNo: idNo, facePhoto: first })).body.errcode).toBe(0);
    const mine = await onlyContactOf(member.id);
    const second = m.photo();
    const holderPhoto = m.photo();

    const answer = await bindDuring(
      pauseAfter('search', second),
      () => contact(member.token, 'update', { id: mine.id, identityNo: idNo, facePhoto: second }),
      idNo,
      holderPhoto,
    );

    expect(answer.errcode).toBe(0);
    expect(await whoIs(second)).toBeNull();
    await expectStaffFaceKept(idNo, holderPhoto, member, mine.id);
  });

  it("does not let a member's failed contact write take back the face staff enrolled meanwhile", async () => {
    const idNo = idCardNumber();
    const member = await memberSession(m.t);
    const memberPhoto = m.photo();
    const holderPhoto = m.photo();

    // The same contact saved without a photo in the pause makes the waiting contact's write fail (409).
    const answer = await bindDuring(
      pauseAfter('createPerson', memberPhoto),
      () => contact(member.token, 'add', { identityNo: idNo, facePhoto: memberPhoto }),
      idNo,
      holderPhoto,
      async () => expect((await contact(member.token, 'add', { identityNo: idNo })).body.errcode).toBe(0),
    );

    expect(answer.errcode).toBe(409);
    expect(await whoIs(memberPhoto)).toBeNull();
    const mine = await onlyContactOf(member.id);
    await expectStaffFaceKept(idNo, holderPhoto, member, mine.id);
  });
});

// A member's enrolment holds the identity number's lock through its photo reads: staff waits for it (up
// to HOLDER_LOCK_WAIT, 10 s; the cases above) rather than being refused at once; a member is refused at once.
describe('the face enrolment lock of an identity number', () => {
  /** A member's contact enrolling a photo under `idNo`, paused holding the lock until `finish`. */
  async function memberEnrolling(idNo: string) {
    const member = await memberSession(m.t);
    const photo = m.photo();
    const pause = pauseAfter('search', photo);
    const done = contact(member.token, 'add', { identityNo: idNo, facePhoto: photo });
    await pause.atPause;
    return {
      photo,
      async finish() {
        pause.release();
        return (await done).body;
      },
    };
  }

  it("refuses at once a member's contact enrolling the identity number while another enrolment runs", async () => {
    const idNo = idCardNumber();
    const first = await memberEnrolling(idNo);
    const second = await memberSession(m.t);
    const secondPhoto = m.photo();
    expect((await contact(second.token, 'add', { identityNo: idNo, facePhoto: secondPhoto })).body).toEqual(BUSY);
    expect((await first.finish()).errcode).toBe(0);
    expect(await whoIs(first.photo)).toBe(idNo);
    expect(await whoIs(secondPhoto)).toBeNull();
  });

  it("answers staff busy, having changed nothing, when a member's enrolment still holds the lock at the end of the bound", async () => {
    const idNo = idCardNumber();
    const member = await memberEnrolling(idNo);
    const holderPhoto = m.photo();
    const started = performance.now();
    const staffAnswer = enrolHolderFace(
      { db: m.t.db, face: m.face, store: m.store },
      { personId: idNo, name: 'Holder', photo: holderPhoto },
      staff.account.id,
      { waitMs: 150, pollMs: 10 },
    );
    await expect(staffAnswer).rejects.toMatchObject({ errcode: BUSY.errcode, message: BUSY.errmsg });
    expect(performance.now() - started).toBeGreaterThanOrEqual(149);
    expect(await whoIs(holderPhoto)).toBeNull();
    expect((await member.finish()).errcode).toBe(0);
    expect(await whoIs(member.photo)).toBe(idNo);
  });
});
