import { AppError, badRequest } from '../../platform/errors.js';
import { FaceError, type FaceService } from '../../platform/face/index.js';
import { faceUnavailable } from '../../platform/face/face.errors.js';
import type { Db } from '../../platform/db/database.js';
import type { Store } from '../../platform/store/index.js';
import { takeLock, waitForLock, type LockWait, type ReleaseLock } from '../../platform/store/store-lock.js';
import { faceEnrolledElsewhere, faceEnrolmentBusy } from './member.errors.js';
import { retireFacesOf } from './member-contacts.repository.js';

/** A face enrolled before, as member_face recorded it: what to put back if a replacement fails. */
export interface StoredFace {
  /** the member whose contact enrolled it */
  memberId: number;
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
  if (!PERSON_ID.test(identityNo))
    throw badRequest(
      'identityNo is invalid: a contact with a face photo needs an identity number of letters and digits only',
    );
  return identityNo;
}

// Longer than any enrolment can take: each photo read and face call gives up after 5 s.
const ENROL_LOCK_TTL_S = 120;

/**
 * How long staff's enrolment waits for another to finish before answering busy: a member's enrolment
 * holds the lock through photo reads of up to 5 s each, and refusing staff at once let a member keep
 * a desk waiting for as long as it kept enrolling.
 */
export const HOLDER_LOCK_WAIT: LockWait = { waitMs: 10_000, pollMs: 100 };

const lockKey = (personId: string) => `face:enrol:${personId}`;

/**
 * Runs `work` holding the store locks of the person ids, or answers busy when another request holds
 * one: at once, or after `wait` when given. An enrolment is a sequence of face calls and database
 * writes that must not interleave with another enrolment of the same id (a member could record, or
 * delete, the face staff enrolled meanwhile), and face calls stay out of transactions, so an advisory
 * lock cannot span it: the store is shared by every instance (Redis), like the SMS code locks.
 */
export async function withFaceLocks<T>(
  store: Store,
  personIds: string[],
  work: () => Promise<T>,
  wait?: LockWait,
): Promise<T> {
  const releases: ReleaseLock[] = [];
  try {
    // Sorted: two requests over the same ids take them in one order, so they cannot each hold one the
    // other needs next and both be refused (again and again, were they retried together).
    for (const id of [...new Set(personIds)].sort()) {
      const release = wait
        ? await waitForLock(store, lockKey(id), ENROL_LOCK_TTL_S, wait)
        : await takeLock(store, lockKey(id), ENROL_LOCK_TTL_S);
      if (!release) throw faceEnrolmentBusy();
      releases.push(release);
    }
    return await work();
  } finally {
    await Promise.all(releases.map((release) => release()));
  }
}

/**
 * A member's enrolment under `personId` with the faces it replaces (`read`), under the locks of every
 * person id it may delete or create. The faces are read again under the locks, so a record staff
 * retired meanwhile is not deleted as the member's own.
 */
export async function withContactFaceLocks<T>(
  store: Store,
  personId: string,
  read: () => Promise<StoredFace[]>,
  work: (replaces: StoredFace[]) => Promise<T>,
): Promise<T> {
  const ids = [personId, ...(await read()).map((f) => f.personId)];
  return withFaceLocks(store, ids, async () => {
    const replaces = await read();
    if (replaces.some((f) => !ids.includes(f.personId))) throw faceEnrolmentBusy();
    return work(replaces);
  });
}

/**
 * The original failure, or — when putting the replaced faces back failed as well, so the face
 * registry no longer matches the contacts — "face service unavailable" carrying both causes to the
 * log. Saving the contact again repairs it: the enrolment deletes and re-creates the person.
 */
function afterUndo(original: unknown, undoFailures: unknown[]): never {
  if (undoFailures.length === 0) throw original;
  const cause = new AggregateError(
    [original, ...undoFailures],
    'contact face enrolment failed and could not be rolled back',
  );
  if (original instanceof AppError && original.errcode >= 500)
    throw new AppError(original.errcode, original.message, original.httpStatus, { cause });
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
 * unreachable service fails here, before anything changed), the member's own stored faces (of the
 * contact, and under the person id) are deleted, and the person is enrolled. A member never replaces a
 * face it did not enrol: a record of another member under the person id refuses the enrolment before
 * anything changed, and so does the face service when the id is enrolled without a record of this
 * member (staff at bindCard) — the deleted own faces are put back then. A failed enrolment puts the
 * deleted faces back and throws; the caller writes the contact afterwards and calls `undo` if that
 * write fails.
 */
export async function enrolContactFace(
  face: FaceService,
  memberId: number,
  person: { personId: string; name: string; photo: string },
  replaces: StoredFace[],
): Promise<FaceEnrolment> {
  if (replaces.some((f) => f.memberId !== memberId)) throw faceEnrolledElsewhere();
  await face.search(person.photo);
  const byId = new Map<string, StoredFace>();
  for (const f of replaces) byId.set(f.personId, f);
  const deleted: StoredFace[] = [];
  try {
    for (const f of byId.values()) {
      await face.deletePerson(f.personId);
      deleted.push(f);
    }
    await face.createPerson(person);
  } catch (err) {
    // Still enrolled although no face of this member is: someone else's (bindCard records none).
    const taken = err instanceof AppError && err.errcode === FaceError.PERSON_EXISTS;
    afterUndo(taken ? faceEnrolledElsewhere() : err, await restore(face, deleted));
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
      failures.push(...(await restore(face, deleted)));
      return afterUndo(cause, failures);
    },
  };
}

/**
 * Staff enrolling a card holder's face at a desk (bindCard), where the person's document is seen: the
 * face under the identity number is replaced whoever enrolled it. The members' records under it are
 * retired first, so no member's contact can later replace or take back the face staff enrolled; a face
 * call failing afterwards leaves no member owning the id (fail closed), and staff retries. Runs under
 * the person id's lock, as a member's enrolment does, so neither sees the other half done; staff
 * waits for it up to `wait` (a member's refusal is at once: the member taps again).
 */
export async function enrolHolderFace(
  deps: { db: Db; face: FaceService; store: Store },
  person: { personId: string; name: string; photo: string },
  staffId: number,
  wait: LockWait = HOLDER_LOCK_WAIT,
): Promise<void> {
  await withFaceLocks(
    deps.store,
    [person.personId],
    async () => {
      await retireFacesOf(deps.db, deps.face.provider, person.personId, staffId);
      await deps.face.deletePerson(person.personId);
      await deps.face.createPerson(person);
    },
    wait,
  );
}
