import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { MAX_CONTACTS } from '../../src/modules/member/member-contacts.service.js';
import { randomMobile } from '../helpers/factories.js';
import { staffSession } from '../helpers/staff.js';
import { createMemberTestApp, idCardNumber, memberSession, PHOTO_HOST, type MemberTestApp } from './member-fixtures.js';

const P = '/mp-api/memberContacts';
const TAKEN =
  'a face is already enrolled for this identity number by someone else: the holder can change it at a service desk';
type Session = { id: number; token: string };

let m: MemberTestApp;
let owner: Session;
let stranger: Session;
beforeAll(async () => {
  m = await createMemberTestApp();
  owner = await memberSession(m.t);
  stranger = await memberSession(m.t);
});
afterAll(() => m?.close());

const post = (op: string, body: unknown, who?: Session) => m.t.post(`${P}/${op}`, body, who?.token);

interface Contact {
  id: number;
  memberId: string;
  name: string;
  idType: string | null;
  identityNo: string;
  phone: string;
  facePhoto: string | null;
  isDeleted: boolean;
  createdBy: number | null;
  createdTime: string | null;
}

async function list(who: Session, keywords?: string): Promise<Contact[]> {
  const res = await post('queryMemberContactsList', keywords === undefined ? {} : { keywords }, who);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data;
}

/** Adds a contact and answers it as the list shows it. */
async function add(who: Session, body: Record<string, unknown>): Promise<Contact> {
  const res = await post('addMemberContacts', body, who);
  expect(res.body, JSON.stringify(res.body)).toEqual({ errcode: 0, errmsg: 'success' });
  const found = (await list(who)).find((c) => c.identityNo === String(body.identityNo).toUpperCase());
  if (!found) throw new Error('added contact not listed');
  return found;
}

// only the database shows a deleted contact, kept with is_deleted for history
const contactRow = (id: number) =>
  m.t.db.selectFrom('member_contacts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
// only the database shows the member's face records, ended ones included
const faceRecords = (personId: string) =>
  m.t.db
    .selectFrom('member_face')
    .select(['member_id', 'contact_id', 'person_id', 'provider', 'photo_url', 'is_deleted'])
    .where('person_id', '=', personId)
    .orderBy('id')
    .execute();
/** Who the face service finds by the photo (the local registry matches the photo's bytes). */
const whoIs = async (photo: string) => (await m.face.search(photo))?.personId ?? null;
// only the database shows the face library's people by identity number (the face service searches by photo)
const enrolled = async (personId: string) =>
  (await m.t.db.selectFrom('face_person').select('person_id').where('person_id', '=', personId).execute()).length;

/** A well-formed PNG too small to show a face. */
function tinyPng(): Buffer {
  const png = new PNG({ width: 10, height: 10 });
  png.data.fill(200);
  return PNG.sync.write(png);
}

describe('add, get, list, delete', () => {
  it('adds a contact without a face and reads it back', async () => {
    const identityNo = idCardNumber();
    const phone = randomMobile();
    const c = await add(owner, { name: ' 张三 ', phone, identityNo, idType: 1 });
    expect(c).toEqual({
      id: expect.any(Number),
      memberId: String(owner.id),
      name: '张三',
      idType: '1',
      identityNo,
      phone,
      facePhoto: null,
      isDeleted: false,
      createdBy: owner.id,
      createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    const got = await post('getMemberContacts', { id: c.id }, owner);
    expect(got.body).toEqual({ errcode: 0, errmsg: 'success', data: c });
    expect(await enrolled(identityNo)).toBe(0);
    expect(await faceRecords(identityNo)).toEqual([]);
  });

  it('takes idType as a string code, defaults it to the ID card, and stores a lower-case x check digit as X', async () => {
    const passport = await add(owner, {
      name: 'Anna Smith',
      phone: randomMobile(),
      idType: '2',
      identityNo: 'e12345678',
    });
    expect(passport).toMatchObject({ idType: '2', identityNo: 'E12345678' });
    let id = idCardNumber();
    while (!id.endsWith('X')) id = idCardNumber();
    const card = await add(owner, { name: '李四', phone: randomMobile(), identityNo: id.toLowerCase() });
    expect(card).toMatchObject({ idType: '1', identityNo: id });
  });

  it("lists only the member's own living contacts, newest first, filtered by keywords over name, phone and identity number", async () => {
    const s = await memberSession(m.t);
    const tag = `K${Date.now().toString(36)}`;
    const a = await add(s, {
      name: `${tag} Alpha`,
      phone: randomMobile(),
      idType: 2,
      identityNo: `${tag}A`.slice(0, 17).toUpperCase(),
    });
    const b = await add(s, { name: 'Beta', phone: '13912345678', identityNo: idCardNumber() });
    const c = await add(s, { name: 'Gamma', phone: randomMobile(), identityNo: idCardNumber() });
    await add(stranger, { name: `${tag} Stranger`, phone: randomMobile(), identityNo: idCardNumber() });
    expect((await list(s)).map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect((await list(s, tag.toLowerCase())).map((x) => x.id)).toEqual([a.id]);
    expect((await list(s, '91234567')).map((x) => x.id)).toEqual([b.id]);
    // birth date and sequence: the district and year-month alone repeat among generated numbers (1 in 240)
    expect((await list(s, c.identityNo.slice(6, 17))).map((x) => x.id)).toEqual([c.id]);
    expect(await list(s, '%')).toEqual([]);
    expect((await post('deleteMemberContacts', { id: b.id }, s)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await list(s)).map((x) => x.id)).toEqual([c.id, a.id]);
  });

  it('deletes logically, then answers 404 for the contact', async () => {
    const c = await add(owner, { name: 'Gone', phone: randomMobile(), identityNo: idCardNumber() });
    expect((await post('deleteMemberContacts', { id: c.id }, owner)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await post('getMemberContacts', { id: c.id }, owner)).body).toEqual({
      errcode: 404,
      errmsg: 'contact not found',
    });
    expect((await post('deleteMemberContacts', { id: c.id }, owner)).body.errcode).toBe(404);
    expect((await contactRow(c.id)).is_deleted).toBe(true);
    // Its identity number may be added again.
    await add(owner, { name: 'Back', phone: randomMobile(), identityNo: c.identityNo });
  });

  it('writes operation logs for add, update and delete, and a failed add', async () => {
    const s = await memberSession(m.t);
    const c = await add(s, { name: 'Logged', phone: randomMobile(), identityNo: idCardNumber() });
    await post(
      'updateMemberContacts',
      { id: c.id, name: 'Logged 2', phone: c.phone, identityNo: c.identityNo, facePhoto: '' },
      s,
    );
    await post('addMemberContacts', { name: 'Twin', phone: randomMobile(), identityNo: c.identityNo }, s);
    await post('deleteMemberContacts', { id: c.id }, s);
    // only the database shows the operation log
    const rows = await m.t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success', 'errcode'])
      .where('account_kind', '=', 'member')
      .where('account_id', '=', s.id)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.module, r.action, r.biz_id, r.success, Number(r.errcode)])).toEqual([
      ['会员联系人', '新增联系人', String(c.id), true, 0],
      ['会员联系人', '修改联系人', String(c.id), true, 0],
      ['会员联系人', '新增联系人', null, false, 409],
      ['会员联系人', '删除联系人', String(c.id), true, 0],
    ]);
  });
});

describe('refusals', () => {
  it("answers another member's contact as not found on get, update and delete, and leaves it alone", async () => {
    const theirs = await add(stranger, { name: 'Private', phone: randomMobile(), identityNo: idCardNumber() });
    const notFound = { errcode: 404, errmsg: 'contact not found' };
    expect((await post('getMemberContacts', { id: theirs.id }, owner)).body).toEqual(notFound);
    expect(
      (
        await post(
          'updateMemberContacts',
          { id: theirs.id, name: 'Mine', phone: randomMobile(), identityNo: idCardNumber(), facePhoto: '' },
          owner,
        )
      ).body,
    ).toEqual(notFound);
    expect((await post('deleteMemberContacts', { id: theirs.id }, owner)).body).toEqual(notFound);
    expect((await post('getMemberContacts', { id: 999_999_999 }, owner)).body).toEqual(notFound);
    expect((await post('getMemberContacts', { id: theirs.id }, stranger)).body.data).toEqual(theirs);
  });

  it('refuses a second contact with the same identity number with 409, but another member may hold it', async () => {
    const identityNo = idCardNumber();
    const first = await add(owner, { name: 'Once', phone: randomMobile(), identityNo });
    const dup = await post('addMemberContacts', { name: 'Twice', phone: randomMobile(), identityNo }, owner);
    expect(dup.body).toEqual({ errcode: 409, errmsg: 'you already have a contact with this identity number' });
    const other = await add(owner, { name: 'Other', phone: randomMobile(), identityNo: idCardNumber() });
    const clash = await post(
      'updateMemberContacts',
      { id: other.id, name: 'Other', phone: other.phone, identityNo, facePhoto: null },
      owner,
    );
    expect(clash.body.errcode).toBe(409);
    await add(stranger, { name: 'Same person', phone: randomMobile(), identityNo });
    expect((await post('getMemberContacts', { id: first.id }, owner)).body.data.name).toBe('Once');
  });

  it(`refuses more than ${MAX_CONTACTS} contacts with 409`, async () => {
    const s = await memberSession(m.t);
    for (let i = 0; i < MAX_CONTACTS; i++) {
      const added = await post(
        'addMemberContacts',
        { name: `C${i}`, phone: randomMobile(), idType: 2, identityNo: `P${1000000 + i}` },
        s,
      );
      expect(added.body.errcode, added.body.errmsg).toBe(0);
    }
    const res = await post(
      'addMemberContacts',
      { name: 'One more', phone: randomMobile(), identityNo: idCardNumber() },
      s,
    );
    expect(res.body).toEqual({
      errcode: 409,
      errmsg: `a member may keep at most ${MAX_CONTACTS} contacts: delete one first`,
    });
  });

  it('validates identity numbers by idType with 400 naming identityNo', async () => {
    const good = idCardNumber();
    const wrongCheck = good.slice(0, 17) + (good[17] === '0' ? '1' : '0');
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [
        { identityNo: wrongCheck },
        /identityNo is invalid: a resident ID card number \(idType 1\) has a wrong check digit/,
      ],
      [{ identityNo: good.slice(0, 17) }, /identityNo is invalid: .*must be 18 characters/],
      [{ identityNo: '33010619900230123X' }, /no real birth date \(19900230\)/],
      [{ identityNo: '330106' + '2099' + '0101' + '123' + 'X' }, /birth date in the future|check digit/],
      [{ identityNo: '330106180001011234' }, /no real birth date/],
      [
        { identityNo: 'AB', idType: 2 },
        /identityNo is invalid: a passport number \(idType 2\) must be 5-17 letters and digits/,
      ],
      [{ identityNo: 'X1234567', idType: 3 }, /Hong Kong\/Macao/],
      [{ identityNo: '1234567', idType: 4 }, /Taiwan/],
      [{ identityNo: '12345678901', idType: 9 }, /birth certificate/],
      [{ identityNo: wrongCheck, idType: 6 }, /residence permit .* wrong check digit/],
      [{ identityNo: '   ' }, /identityNo/],
    ];
    for (const [over, message] of cases) {
      const res = await post('addMemberContacts', { name: 'Bad', phone: randomMobile(), ...over }, owner);
      expect(res.body.errcode, JSON.stringify(over)).toBe(400);
      expect(res.body.errmsg).toMatch(message);
    }
    // A future birth date with a right check digit.
    const first17 = `330106${new Date().getFullYear() + 1}0101123`;
    const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    const future = first17 + '10X98765432'[[...first17].reduce((s, d, i) => s + Number(d) * w[i], 0) % 11];
    expect(
      (await post('addMemberContacts', { name: 'Unborn', phone: randomMobile(), identityNo: future }, owner)).body
        .errmsg,
    ).toMatch(/birth date in the future/);
  });

  it('refuses bad fields with 400 naming them', async () => {
    const valid = () => ({ name: 'Ok', phone: randomMobile(), identityNo: idCardNumber() });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...valid(), name: undefined }, 'name is required'],
      [{ ...valid(), name: '   ' }, 'name'],
      [{ ...valid(), name: 'x'.repeat(61) }, 'name'],
      [{ ...valid(), phone: undefined }, 'phone is required'],
      [{ ...valid(), phone: '0571-88886666' }, 'phone'],
      [{ ...valid(), identityNo: undefined }, 'identityNo is required'],
      [{ ...valid(), identityNo: '1'.repeat(33) }, 'identityNo'],
      [{ ...valid(), idType: 10 }, 'idType'],
      [{ ...valid(), idType: 'passport' }, 'idType'],
      [{ ...valid(), facePhoto: 'file:///etc/passwd' }, 'facePhoto'],
      [{ ...valid(), facePhoto: `https://${PHOTO_HOST}/${'x'.repeat(1024)}` }, 'facePhoto'],
    ];
    for (const [body, field] of cases) {
      const res = await post('addMemberContacts', body, owner);
      expect(res.body.errcode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.errmsg).toContain(field);
    }
    const update = await post('updateMemberContacts', valid(), owner);
    expect(update.body).toEqual({ errcode: 400, errmsg: 'id is required' });
    const noPhoto = await post('updateMemberContacts', { id: 1, ...valid() }, owner);
    expect(noPhoto.body).toEqual({ errcode: 400, errmsg: 'facePhoto is required' });
    expect((await post('getMemberContacts', {}, owner)).body).toEqual({ errcode: 400, errmsg: 'id is required' });
    expect((await post('deleteMemberContacts', { id: 'one' }, owner)).body.errcode).toBe(400);
    expect((await post('queryMemberContactsList', { keywords: 'x'.repeat(65) }, owner)).body.errmsg).toContain(
      'keywords',
    );
  });

  it('refuses no token and tokens of other kinds with 401 on every operation', async () => {
    const staff = await staffSession(m.t, { kind: 'platform', permissions: ['*'] });
    for (const op of [
      'addMemberContacts',
      'updateMemberContacts',
      'deleteMemberContacts',
      'getMemberContacts',
      'queryMemberContactsList',
    ]) {
      expect((await m.t.post(`${P}/${op}`, { id: 1 })).body.errcode, op).toBe(401);
      expect((await m.t.post(`${P}/${op}`, { id: 1 }, staff.token)).body.errcode, op).toBe(401);
      // Member operations live on /mp-api only.
      expect((await m.t.post(`/manage-api/memberContacts/${op}`, { id: 1 }, owner.token)).status, op).toBe(404);
    }
  });
});

describe('face enrolment', () => {
  it('enrols the photo under the identity number and records it on add', async () => {
    const identityNo = idCardNumber();
    const photo = m.photo();
    const c = await add(owner, { name: '王五', phone: randomMobile(), identityNo, facePhoto: photo });
    expect(c.facePhoto).toBe(photo);
    expect(await whoIs(photo)).toBe(identityNo);
    expect(await faceRecords(identityNo)).toEqual([
      {
        member_id: owner.id,
        contact_id: c.id,
        person_id: identityNo,
        provider: 'local',
        photo_url: photo,
        is_deleted: false,
      },
    ]);
  });

  it('replaces the enrolled face when the photo changes, and follows a new identity number', async () => {
    const first = idCardNumber();
    const oldPhoto = m.photo();
    const c = await add(owner, { name: 'Mover', phone: randomMobile(), identityNo: first, facePhoto: oldPhoto });
    const newPhoto = m.photo();
    const res = await post(
      'updateMemberContacts',
      { id: c.id, name: 'Mover', phone: c.phone, identityNo: first, facePhoto: newPhoto },
      owner,
    );
    expect(res.body).toEqual({ errcode: 0, errmsg: 'success' });
    expect(await whoIs(newPhoto)).toBe(first);
    expect(await whoIs(oldPhoto)).toBeNull();

    // facePhoto null keeps the photo; a new identity number moves the enrolment to it.
    const second = idCardNumber();
    expect(
      (
        await post(
          'updateMemberContacts',
          { id: c.id, name: 'Mover', phone: c.phone, identityNo: second, facePhoto: null },
          owner,
        )
      ).body.errcode,
    ).toBe(0);
    expect(await whoIs(newPhoto)).toBe(second);
    expect(await enrolled(first)).toBe(0);
    expect((await post('getMemberContacts', { id: c.id }, owner)).body.data.facePhoto).toBe(newPhoto);
    const records = await faceRecords(second);
    expect(records).toEqual([expect.objectContaining({ contact_id: c.id, photo_url: newPhoto, is_deleted: false })]);
    expect((await faceRecords(first)).every((r) => r.is_deleted)).toBe(true);

    // "" removes the photo from the contact; the enrolled face stays for face check-in.
    expect(
      (
        await post(
          'updateMemberContacts',
          { id: c.id, name: 'Mover', phone: c.phone, identityNo: second, facePhoto: '' },
          owner,
        )
      ).body.errcode,
    ).toBe(0);
    expect((await post('getMemberContacts', { id: c.id }, owner)).body.data.facePhoto).toBeNull();
    expect(await whoIs(newPhoto)).toBe(second);
  });

  // QA defect 1: this used to delete the other member's face and enrol the new photo, a face takeover.
  it("refuses to enrol under an identity number another member's contact enrolled, on add and update, and changes nothing", async () => {
    const identityNo = idCardNumber();
    const theirPhoto = m.photo();
    const theirs = await add(stranger, { name: 'Grandma', phone: randomMobile(), identityNo, facePhoto: theirPhoto });
    const refused = { errcode: 1003000002, errmsg: TAKEN };

    const photo = m.photo();
    expect(
      (await post('addMemberContacts', { name: 'Grandma', phone: randomMobile(), identityNo, facePhoto: photo }, owner))
        .body,
    ).toEqual(refused);
    expect(await list(owner, identityNo)).toEqual([]);

    const mine = await add(owner, {
      name: 'Mine',
      phone: randomMobile(),
      identityNo: idCardNumber(),
      facePhoto: m.photo(),
    });
    const moved = { id: mine.id, name: 'Mine', phone: mine.phone, identityNo, facePhoto: photo };
    expect((await post('updateMemberContacts', moved, owner)).body).toEqual(refused);
    expect((await post('updateMemberContacts', { ...moved, facePhoto: null }, owner)).body).toEqual(refused);
    expect((await post('getMemberContacts', { id: mine.id }, owner)).body.data).toEqual(mine);
    expect(await whoIs(mine.facePhoto!)).toBe(mine.identityNo);

    expect(await whoIs(theirPhoto)).toBe(identityNo);
    expect(await whoIs(photo)).toBeNull();
    expect(await faceRecords(identityNo)).toEqual([
      expect.objectContaining({ member_id: stranger.id, contact_id: theirs.id, is_deleted: false }),
    ]);
    // A contact without a photo enrols nothing and stays allowed.
    await add(owner, { name: 'Grandma', phone: randomMobile(), identityNo });
  });

  it("refuses to replace a face enrolled without a member's record (staff at bindCard), and puts its own back", async () => {
    const identityNo = idCardNumber();
    const deskPhoto = m.photo();
    await m.face.createPerson({ personId: identityNo, name: 'Holder', photo: deskPhoto });
    const res = await post(
      'addMemberContacts',
      { name: 'Holder', phone: randomMobile(), identityNo, facePhoto: m.photo() },
      owner,
    );
    expect(res.body).toEqual({ errcode: 1003000002, errmsg: TAKEN });
    expect(await whoIs(deskPhoto)).toBe(identityNo);
    expect(await list(owner, identityNo)).toEqual([]);
    expect(await faceRecords(identityNo)).toEqual([]);

    // A contact moving from its own enrolled identity number to that one keeps its own face.
    const ownPhoto = m.photo();
    const mine = await add(owner, {
      name: 'Own',
      phone: randomMobile(),
      identityNo: idCardNumber(),
      facePhoto: ownPhoto,
    });
    const upd = await post(
      'updateMemberContacts',
      { id: mine.id, name: 'Own', phone: mine.phone, identityNo, facePhoto: null },
      owner,
    );
    expect(upd.body).toEqual({ errcode: 1003000002, errmsg: TAKEN });
    expect(await whoIs(ownPhoto)).toBe(mine.identityNo);
    expect(await faceRecords(mine.identityNo)).toEqual([
      expect.objectContaining({ contact_id: mine.id, is_deleted: false }),
    ]);
  });

  it('lets a member re-enrol a face it enrolled itself, also through a new contact after deleting the old one', async () => {
    const identityNo = idCardNumber();
    const first = await add(owner, { name: 'Kid', phone: randomMobile(), identityNo, facePhoto: m.photo() });
    expect((await post('deleteMemberContacts', { id: first.id }, owner)).body.errcode).toBe(0);
    const photo = m.photo();
    const again = await add(owner, { name: 'Kid', phone: randomMobile(), identityNo, facePhoto: photo });
    expect(await whoIs(photo)).toBe(identityNo);
    expect((await faceRecords(identityNo)).map((r) => [r.contact_id, r.is_deleted])).toEqual([
      [first.id, true],
      [again.id, false],
    ]);
  });

  it('refuses a photo without a face, or one that cannot be read, and changes nothing', async () => {
    const cases: Array<[string, { errcode: number; errmsg: string }]> = [
      [m.photo(tinyPng()), { errcode: 1025000001, errmsg: 'no face found in the image' }],
      [
        `https://${PHOTO_HOST}/missing.png`,
        { errcode: 1025000003, errmsg: 'the image could not be read from its URL' },
      ],
      [m.photo(Buffer.from('GIF89a not a face')), { errcode: 1025000003, errmsg: 'the image must be a JPEG or PNG' }],
    ];
    for (const [facePhoto, answer] of cases) {
      const identityNo = idCardNumber();
      const res = await post(
        'addMemberContacts',
        { name: 'Blank', phone: randomMobile(), identityNo, facePhoto },
        owner,
      );
      expect(res.body, facePhoto).toEqual(answer);
      expect(await list(owner, identityNo)).toEqual([]);
      expect(await enrolled(identityNo)).toBe(0);
    }
  });

  it('answers a clear error and adds nothing when the face service fails at any step', async () => {
    // A new identity number has no face of the member's to delete: only search and create are called.
    for (const fault of ['search', 'createPerson'] as const) {
      const identityNo = idCardNumber();
      const photo = m.photo();
      m.faceFault.on = fault;
      try {
        const res = await post(
          'addMemberContacts',
          { name: 'Unlucky', phone: randomMobile(), identityNo, facePhoto: photo },
          owner,
        );
        expect(res.body, fault).toEqual({
          errcode: 1025000002,
          errmsg: 'the face service is unavailable, please try again later',
        });
      } finally {
        m.faceFault.on = null;
      }
      expect(await list(owner, identityNo), fault).toEqual([]);
      expect(await enrolled(identityNo), fault).toBe(0);
      expect(await faceRecords(identityNo), fault).toEqual([]);
    }
    // Replacing its own face, deleting the old one fails: the contact and its face stay as they were.
    const identityNo = idCardNumber();
    const oldPhoto = m.photo();
    const c = await add(owner, { name: 'Unlucky', phone: randomMobile(), identityNo, facePhoto: oldPhoto });
    m.faceFault.on = 'deletePerson';
    try {
      const res = await post(
        'updateMemberContacts',
        { id: c.id, name: 'Unlucky', phone: c.phone, identityNo, facePhoto: m.photo() },
        owner,
      );
      expect(res.body).toEqual({
        errcode: 1025000002,
        errmsg: 'the face service is unavailable, please try again later',
      });
    } finally {
      m.faceFault.on = null;
    }
    expect((await post('getMemberContacts', { id: c.id }, owner)).body.data).toEqual(c);
    expect(await whoIs(oldPhoto)).toBe(identityNo);
  });

  it('keeps the contact and its enrolled face as they were when a new enrolment fails', async () => {
    const identityNo = idCardNumber();
    const oldPhoto = m.photo();
    const c = await add(owner, { name: 'Steady', phone: randomMobile(), identityNo, facePhoto: oldPhoto });
    const update = { id: c.id, name: 'Changed', phone: randomMobile(), identityNo, facePhoto: m.photo() };
    Object.assign(m.faceFault, { on: 'createPerson', times: 1 });
    try {
      expect((await post('updateMemberContacts', update, owner)).body.errcode).toBe(1025000002);
    } finally {
      Object.assign(m.faceFault, { on: null, times: Infinity });
    }
    expect((await post('getMemberContacts', { id: c.id }, owner)).body.data).toEqual(c);
    // The old face was deleted before the failed enrolment and has been put back.
    expect(await whoIs(oldPhoto)).toBe(identityNo);
    expect(await faceRecords(identityNo)).toEqual([
      expect.objectContaining({ contact_id: c.id, photo_url: oldPhoto, is_deleted: false }),
    ]);
  });

  it('answers "unavailable" when the old face cannot be put back either, and saving again repairs it', async () => {
    const identityNo = idCardNumber();
    const oldPhoto = m.photo();
    const c = await add(owner, { name: 'Fragile', phone: randomMobile(), identityNo, facePhoto: oldPhoto });
    m.faceFault.on = 'createPerson';
    try {
      const res = await post(
        'updateMemberContacts',
        { id: c.id, name: 'Fragile', phone: c.phone, identityNo, facePhoto: m.photo() },
        owner,
      );
      expect(res.body).toEqual({
        errcode: 1025000002,
        errmsg: 'the face service is unavailable, please try again later',
      });
    } finally {
      m.faceFault.on = null;
    }
    expect((await post('getMemberContacts', { id: c.id }, owner)).body.data).toEqual(c);
    expect(await enrolled(identityNo)).toBe(0);
    // The client saves the contact again as it stands: its photo is enrolled anew.
    expect(
      (
        await post(
          'updateMemberContacts',
          { id: c.id, name: 'Fragile', phone: c.phone, identityNo, facePhoto: oldPhoto },
          owner,
        )
      ).body.errcode,
    ).toBe(0);
    expect(await whoIs(oldPhoto)).toBe(identityNo);
  });

  it('takes the enrolment back when writing the contact fails afterwards', async () => {
    await sql
      .raw(
        `create or replace function member_contacts_test_fail() returns trigger language plpgsql as $$
      begin if new.name = 'FAIL-DB' then raise exception 'injected failure'; end if; return new; end $$`,
      )
      .execute(m.t.db);
    await sql
      .raw(
        `create trigger member_contacts_test_fail before insert or update on member_contacts for each row execute function member_contacts_test_fail()`,
      )
      .execute(m.t.db);
    try {
      // On add: nothing is left enrolled.
      const identityNo = idCardNumber();
      const photo = m.photo();
      const res = await post(
        'addMemberContacts',
        { name: 'FAIL-DB', phone: randomMobile(), identityNo, facePhoto: photo },
        owner,
      );
      expect(res.body).toEqual({ errcode: 500, errmsg: 'internal server error' });
      expect(await list(owner, identityNo)).toEqual([]);
      expect(await enrolled(identityNo)).toBe(0);
      expect(await whoIs(photo)).toBeNull();
      expect(await faceRecords(identityNo)).toEqual([]);

      // On update: the earlier face is enrolled again.
      const kept = idCardNumber();
      const oldPhoto = m.photo();
      const c = await add(owner, { name: 'Kept', phone: randomMobile(), identityNo: kept, facePhoto: oldPhoto });
      const newPhoto = m.photo();
      const upd = await post(
        'updateMemberContacts',
        { id: c.id, name: 'FAIL-DB', phone: c.phone, identityNo: kept, facePhoto: newPhoto },
        owner,
      );
      expect(upd.body.errcode).toBe(500);
      expect((await post('getMemberContacts', { id: c.id }, owner)).body.data).toEqual(c);
      expect(await whoIs(oldPhoto)).toBe(kept);
      expect(await whoIs(newPhoto)).toBeNull();
      expect(await faceRecords(kept)).toEqual([
        expect.objectContaining({ contact_id: c.id, photo_url: oldPhoto, is_deleted: false }),
      ]);
      // only the database shows the operation log
      const log = await m.t.db
        .selectFrom('operate_log')
        .select(['action', 'biz_id', 'success', 'errcode'])
        .where('account_kind', '=', 'member')
        .where('account_id', '=', owner.id)
        .where('success', '=', false)
        .where('errcode', '=', 500)
        .orderBy('id')
        .execute();
      expect(log.map((r) => [r.action, r.biz_id])).toEqual([
        ['新增联系人', null],
        ['修改联系人', String(c.id)],
      ]);
    } finally {
      await sql.raw('drop trigger if exists member_contacts_test_fail on member_contacts').execute(m.t.db);
      await sql.raw('drop function if exists member_contacts_test_fail()').execute(m.t.db);
    }
  });

  it('refuses a face photo for an identity number the face service cannot hold, but keeps such a contact without one', async () => {
    const res = await post(
      'addMemberContacts',
      { name: '军官', phone: randomMobile(), idType: 7, identityNo: '南字第12345678号', facePhoto: m.photo() },
      owner,
    );
    expect(res.body.errcode).toBe(400);
    expect(res.body.errmsg).toMatch(
      /^identityNo is invalid: a contact with a face photo needs an identity number of letters and digits only/,
    );
    await add(owner, { name: '军官', phone: randomMobile(), idType: 7, identityNo: '南字第12345678号' });
  });
});
