import { AppError, badRequest } from '../../platform/errors.js';
import type { FaceService } from '../../platform/face/index.js';
import { faceUnavailable } from '../../platform/face/face.errors.js';

/** A face enrolled before, as member_face recorded it: what to put back if a replacement fails. */
export interface StoredFace {
  personId: string;
  name: string;
  photoUrl: string | null;
}

export interface FaceEnrolment {
  personId: string;
  provider: FaceService['provider'];
  /** Takes the enrolment back and restores the faces it replaced (the contact change did not commit). */
  undo(cause: unknown): Promise<never>;
}

// The face services' person-id rule (Tencent IAI's, kept by the local registry too).
const PERSON_ID = /^[A-Za-z0-9\-%@#&_]{1,64}$/;

/**
 * The contact's identity number as a face person id (spec A 4.2 rule 1), refused with a 400 naming
 * identityNo when the face service cannot hold it (officer certificates may contain Chinese).
 */
export function facePersonId(identityNo: string): string {
  if (!PERSON_ID.test(identityNo)) throw badRequest('identityNo is invalid: a contact with a face photo needs an identity number of letters and digits only');
  return identityNo;
}

/**
 * The original failure, or — when putting the replaced faces back failed as well, so the face
 * registry no longer matches the contacts — "face service unavailable" carrying both causes to the
 * log. Saving the contact again repairs it: the enrolment deletes and re-creates the person.
 */
function afterUndo(original: unknown, undoFailures: unknown[]): never {
  if (undoFailures.length === 0) throw original;
  const cause = new AggregateError([original, ...undoFailures], 'contact face enrolment failed and could not be rolled back');
  if (original instanceof AppError && original.errcode >= 500) throw new AppError(original.errcode, original.message, original.httpStatus, { cause });
  throw faceUnavailable(cause);
}

async function restore(face: FaceService, faces: StoredFace[]): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (const f of faces) {
    if (!f.photoUrl) {
      failures.push(new Error(`no photo is recorded to re-enrol face person ${f.personId}`));
      continue;
    }
    try {
      await face.createPerson({ personId: f.personId, name: f.name, photo: f.photoUrl });
    } catch (err) {
      failures.push(err);
    }
  }
  return failures;
}

/**
 * Spec A 4.2 rule 1, outside any transaction: the photo is searched first (a photo without a face or an
 * unreachable service fails here, before anything changed), the stored faces of the contact and of the
 * person id are deleted, and the person is enrolled. A failed enrolment puts the deleted faces back
 * and throws; the caller writes the contact afterwards and calls `undo` if that write fails.
 */
export async function enrolContactFace(
  face: FaceService,
  person: { personId: string; name: string; photo: string },
  replaces: StoredFace[],
): Promise<FaceEnrolment> {
  await face.search(person.photo);
  const byId = new Map<string, StoredFace>();
  for (const f of replaces) byId.set(f.personId, f);
  // The person id itself is always cleared: createPerson refuses an id that is still enrolled.
  if (!byId.has(person.personId)) byId.set(person.personId, { personId: person.personId, name: person.name, photoUrl: null });
  const deleted: StoredFace[] = [];
  // Only faces that member_face recorded can be put back; an id cleared without a record held none of ours.
  const recorded = (faces: StoredFace[]) => faces.filter((f) => replaces.includes(f));
  try {
    for (const f of byId.values()) {
      await face.deletePerson(f.personId);
      deleted.push(f);
    }
    await face.createPerson(person);
  } catch (err) {
    afterUndo(err, await restore(face, recorded(deleted)));
  }
  return {
    personId: person.personId,
    provider: face.provider,
    async undo(cause) {
      const failures: unknown[] = [];
      try {
        await face.deletePerson(person.personId);
      } catch (err) {
        failures.push(err);
      }
      failures.push(...(await restore(face, recorded(deleted))));
      return afterUndo(cause, failures);
    },
  };
}
