import type { Db } from '../../platform/db/database.js';
import { advisoryLock, loggedTransaction, type Trx } from '../../platform/db/transaction.js';
import type { FaceService } from '../../platform/face/index.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Store } from '../../platform/store/index.js';
import { enrolContactFace, facePersonId, withContactFaceLocks, type FaceEnrolment } from './contact-face.js';
import { DEFAULT_ID_TYPE, normaliseIdentityNo } from './identity-number.js';
import { contactExists, contactNotFound, faceEnrolledElsewhere, tooManyContacts } from './member.errors.js';
import * as repo from './member-contacts.repository.js';
import type {
  MemberContacts,
  MemberContactsAdd,
  MemberContactsListRequest,
  MemberContactsUpdate,
} from './member-contacts.schemas.js';
import { nonBlank as requiredText } from '../../platform/text-input.js';

/** Enough for a family and its travel companions; bounds the faces one account can enrol. */
export const MAX_CONTACTS = 50;

/**
 * A member's contacts (spec A 4.2): each member sees and changes only its own; a contact with a face
 * photo is enrolled in the face service under its identity number. Face calls run outside the
 * transaction (they are external calls); the contact is written only after the enrolment succeeded,
 * and the enrolment is taken back if that write fails, so a failure leaves no change behind.
 */
export function createMemberContactsService(deps: { db: Db; face: FaceService; store: Store }) {
  const { db, face, store } = deps;

  /** The checks that must hold at commit: repeated under the member's lock inside the transaction. */
  async function checkRoom(
    trx: Db | Trx,
    memberId: number,
    identityNo: string,
    exceptId: number | null,
  ): Promise<void> {
    if (await repo.identityTaken(trx, memberId, identityNo, exceptId)) throw contactExists();
    if (exceptId === null && (await repo.countContacts(trx, memberId)) >= MAX_CONTACTS)
      throw tooManyContacts(MAX_CONTACTS);
  }

  /** Writes the contact (and the face record) in one logged transaction; undoes the enrolment if it fails. */
  async function write(
    ctx: AuthedContext,
    enrolment: FaceEnrolment | null,
    photo: string | null,
    work: (trx: Trx) => Promise<number>,
  ): Promise<number> {
    const memberId = ctx.account.id;
    try {
      return await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          await advisoryLock(trx, 'member-contacts', memberId);
          const contactId = await work(trx);
          if (enrolment && photo) {
            await advisoryLock(trx, 'member-face', enrolment.personId);
            const recorded = await repo.recordFace(trx, {
              memberId,
              contactId,
              personId: enrolment.personId,
              provider: enrolment.provider,
              photoUrl: photo,
            });
            if (!recorded) throw faceEnrolledElsewhere();
          }
          return contactId;
        },
        (id) => id,
      );
    } catch (err) {
      if (enrolment) await enrolment.undo(err);
      throw err;
    }
  }

  /** Enrols the photo (spec A 4.2 rule 1), then writes, all under the locks of the person ids it touches. */
  async function enrolAndWrite(
    ctx: AuthedContext,
    contactId: number | null,
    person: { identityNo: string; name: string; photo: string },
    work: (trx: Trx) => Promise<number>,
  ): Promise<void> {
    const personId = facePersonId(person.identityNo);
    const read = () =>
      repo.recordedFaces(
        db,
        face.provider,
        contactId === null ? { personIds: [personId] } : { contactId, personIds: [personId] },
      );
    await withContactFaceLocks(store, personId, read, async (replaces) => {
      const enrolment = await enrolContactFace(
        face,
        ctx.account.id,
        { personId, name: person.name, photo: person.photo },
        replaces,
      );
      await write(ctx, enrolment, person.photo, work);
    });
  }

  return {
    async add(ctx: AuthedContext, input: MemberContactsAdd): Promise<void> {
      const memberId = ctx.account.id;
      const idType = input.idType ?? DEFAULT_ID_TYPE;
      const v: repo.ContactValues = {
        name: requiredText('name', input.name),
        idType,
        identityNo: normaliseIdentityNo(idType, input.identityNo),
        phone: input.phone,
        facePhoto: input.facePhoto?.trim() || null,
      };
      await checkRoom(db, memberId, v.identityNo, null);
      const insert = async (trx: Trx) => {
        await checkRoom(trx, memberId, v.identityNo, null);
        return repo.insertContact(trx, memberId, v);
      };
      if (v.facePhoto) await enrolAndWrite(ctx, null, { ...v, photo: v.facePhoto }, insert);
      else await write(ctx, null, null, insert);
    },

    /**
     * Absent idType keeps the stored one; facePhoto null keeps the stored photo and "" removes it. A
     * photo is enrolled when one is given, and the kept one again when the identity number or name it
     * is enrolled under changes.
     */
    async update(ctx: AuthedContext, input: MemberContactsUpdate): Promise<void> {
      const memberId = ctx.account.id;
      const found = await repo.findContact(db, memberId, input.id);
      if (!found) throw contactNotFound();
      const current = found.stored;
      const idType = input.idType ?? current.idType;
      const given = input.facePhoto === null ? null : input.facePhoto.trim();
      const v: repo.ContactValues = {
        name: requiredText('name', input.name),
        idType,
        identityNo: normaliseIdentityNo(idType, input.identityNo),
        phone: input.phone,
        facePhoto: given === null ? current.facePhoto : given || null,
      };
      await checkRoom(db, memberId, v.identityNo, current.id);
      const reenrol =
        v.facePhoto !== null && (!!given || v.identityNo !== current.identityNo || v.name !== current.name);
      const change = async (trx: Trx) => {
        await checkRoom(trx, memberId, v.identityNo, current.id);
        if (!(await repo.updateContact(trx, memberId, current.id, v))) throw contactNotFound();
        return current.id;
      };
      if (reenrol && v.facePhoto) await enrolAndWrite(ctx, current.id, { ...v, photo: v.facePhoto }, change);
      else await write(ctx, null, v.facePhoto, change);
    },

    /** Logical delete. The enrolled face stays: face check-in of the person's cards finds it by identity number. */
    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(
        db,
        ctx,
        async (trx) => {
          if (!(await repo.softDeleteContact(trx, ctx.account.id, id))) throw contactNotFound();
        },
        () => id,
      );
    },

    async get(ctx: AuthedContext, id: number): Promise<MemberContacts> {
      const found = await repo.findContact(db, ctx.account.id, id);
      if (!found) throw contactNotFound();
      return found.wire;
    },

    list(ctx: AuthedContext, input: MemberContactsListRequest): Promise<MemberContacts[]> {
      return repo.listContacts(db, ctx.account.id, input.keywords);
    },
  };
}

export type MemberContactsService = ReturnType<typeof createMemberContactsService>;
