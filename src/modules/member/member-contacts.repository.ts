import { sql, type Selectable } from 'kysely';
import type { MemberContactsTable } from '../../db/tables/member.js';
import type { Executor } from '../../platform/db/executor.js';
import { keywordsCondition } from '../../platform/db/text-match.js';
import { LIST_MAX_ROWS, codeText } from '../../platform/http/schemas.js';
import { formatDateTime } from '../../platform/time.js';
import type { StoredFace } from './contact-face.js';
import type { MemberContacts } from './member-contacts.schemas.js';

export interface ContactValues {
  name: string;
  idType: number;
  identityNo: string;
  phone: string;
  facePhoto: string | null;
}

/** A contact as the service works with it: the wire shape and its stored idType as a number. */
export interface StoredContact extends ContactValues {
  id: number;
  memberId: number;
}

type Row = Selectable<MemberContactsTable>;

function toWire(r: Row): MemberContacts {
  return {
    id: r.id,
    memberId: String(r.member_id),
    name: r.name,
    idType: codeText(r.id_type),
    identityNo: r.identity_no,
    phone: r.phone,
    facePhoto: r.face_photo,
    isDeleted: r.is_deleted,
    createdBy: r.created_by,
    createdTime: formatDateTime(r.created_at),
  };
}

const columns = (v: ContactValues) => ({
  name: v.name,
  id_type: v.idType,
  identity_no: v.identityNo,
  phone: v.phone,
  face_photo: v.facePhoto,
});

/** Only the member's own living contacts are ever found: another member's id reads as absent. */
function own(db: Executor, memberId: number) {
  return db
    .selectFrom('member_contacts')
    .selectAll()
    .where('member_id', '=', memberId)
    .where(sql<boolean>`not is_deleted`);
}

export async function findContact(
  db: Executor,
  memberId: number,
  id: number,
): Promise<{ wire: MemberContacts; stored: StoredContact } | null> {
  const r = await own(db, memberId).where('id', '=', id).executeTakeFirst();
  if (!r) return null;
  return {
    wire: toWire(r),
    stored: {
      id: r.id,
      memberId: r.member_id,
      name: r.name,
      idType: r.id_type ?? 1,
      identityNo: r.identity_no,
      phone: r.phone,
      facePhoto: r.face_photo,
    },
  };
}

/** The member's contacts, newest first, filtered by keywords over name, phone and identity number. */
export async function listContacts(
  db: Executor,
  memberId: number,
  keywords: string | null | undefined,
): Promise<MemberContacts[]> {
  let q = own(db, memberId);
  const kw = keywordsCondition(keywords, [
    'member_contacts.name',
    'member_contacts.phone',
    'member_contacts.identity_no',
  ]);
  if (kw) q = q.where(kw);
  const rows = await q.orderBy('id', 'desc').limit(LIST_MAX_ROWS).execute();
  return rows.map(toWire);
}

export async function countContacts(db: Executor, memberId: number): Promise<number> {
  const r = await db
    .selectFrom('member_contacts')
    .select(sql<string | number>`count(*)`.as('n'))
    .where('member_id', '=', memberId)
    .where(sql<boolean>`not is_deleted`)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Whether another living contact of the member has this identity number. */
export async function identityTaken(
  db: Executor,
  memberId: number,
  identityNo: string,
  exceptId: number | null,
): Promise<boolean> {
  let q = own(db, memberId).where('identity_no', '=', identityNo);
  if (exceptId !== null) q = q.where('id', '<>', exceptId);
  return (
    (await q
      .select(sql`1`.as('one'))
      .limit(1)
      .executeTakeFirst()) !== undefined
  );
}

export async function insertContact(db: Executor, memberId: number, v: ContactValues): Promise<number> {
  const r = await db
    .insertInto('member_contacts')
    .values({ member_id: memberId, ...columns(v), created_by: memberId, updated_by: memberId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** Updates the member's own living contact; false when there is none (deleted meanwhile). */
export async function updateContact(db: Executor, memberId: number, id: number, v: ContactValues): Promise<boolean> {
  const r = await db
    .updateTable('member_contacts')
    .set({ ...columns(v), updated_by: memberId, updated_at: new Date() })
    .where('id', '=', id)
    .where('member_id', '=', memberId)
    .where(sql<boolean>`not is_deleted`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function softDeleteContact(db: Executor, memberId: number, id: number): Promise<boolean> {
  const r = await db
    .updateTable('member_contacts')
    .set({ is_deleted: true, updated_by: memberId, updated_at: new Date() })
    .where('id', '=', id)
    .where('member_id', '=', memberId)
    .where(sql<boolean>`not is_deleted`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The enrolments recorded (living member_face rows) for a contact or under any of the person ids. */
export async function recordedFaces(
  db: Executor,
  provider: string,
  q: { contactId?: number; personIds: string[] },
): Promise<StoredFace[]> {
  const rows = await db
    .selectFrom('member_face')
    .innerJoin('member_contacts', 'member_contacts.id', 'member_face.contact_id')
    .select(['member_face.member_id', 'member_face.person_id', 'member_face.photo_url', 'member_contacts.name'])
    .where('member_face.provider', '=', provider)
    .where(sql<boolean>`not member_face.is_deleted`)
    .where((eb) => {
      const any = [];
      if (q.contactId !== undefined) any.push(eb('member_face.contact_id', '=', q.contactId));
      if (q.personIds.length > 0) any.push(eb('member_face.person_id', 'in', q.personIds));
      return any.length > 0 ? eb.or(any) : eb.val(false);
    })
    .execute();
  return rows.map((r) => ({
    memberId: Number(r.member_id),
    personId: r.person_id,
    name: r.name,
    photoUrl: r.photo_url,
  }));
}

/**
 * Records a new enrolment (spec A 4.2 rule 1: "add also inserts a face record"), retiring the member's
 * own records it replaced: the contact's earlier ones and the member's under the same person id. False,
 * with nothing written, when another member holds a living record under the person id (its face is not
 * the member's to replace; the caller holds the person id's lock).
 */
export async function recordFace(
  db: Executor,
  f: { memberId: number; contactId: number; personId: string; provider: string; photoUrl: string },
): Promise<boolean> {
  const foreign = await db
    .selectFrom('member_face')
    .select('id')
    .where('provider', '=', f.provider)
    .where('person_id', '=', f.personId)
    .where('member_id', '<>', f.memberId)
    .where(sql<boolean>`not is_deleted`)
    .limit(1)
    .executeTakeFirst();
  if (foreign) return false;
  await db
    .updateTable('member_face')
    .set({ is_deleted: true, updated_by: f.memberId, updated_at: new Date() })
    .where('provider', '=', f.provider)
    .where(sql<boolean>`not is_deleted`)
    .where((eb) =>
      eb.or([
        eb.and([eb('person_id', '=', f.personId), eb('member_id', '=', f.memberId)]),
        eb('contact_id', '=', f.contactId),
      ]),
    )
    .execute();
  await db
    .insertInto('member_face')
    .values({
      member_id: f.memberId,
      contact_id: f.contactId,
      person_id: f.personId,
      provider: f.provider,
      photo_url: f.photoUrl,
      created_by: f.memberId,
      updated_by: f.memberId,
    })
    .execute();
  return true;
}

/**
 * Staff replaced the face under the person id (bindCard): the members' records under it no longer
 * describe the enrolled face, so none of them may replace or take it back any more.
 */
export async function retireFacesOf(db: Executor, provider: string, personId: string, by: number): Promise<void> {
  await db
    .updateTable('member_face')
    .set({ is_deleted: true, updated_by: by, updated_at: new Date() })
    .where('provider', '=', provider)
    .where('person_id', '=', personId)
    .where(sql<boolean>`not is_deleted`)
    .execute();
}
