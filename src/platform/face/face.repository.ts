import type { Executor } from '../db/executor.js';

export interface FacePersonRow {
  groupId: string;
  personId: string;
  name: string;
  imageSha256: string;
  imageFormat: 'jpeg' | 'png';
  imageWidth: number;
  imageHeight: number;
}

/** Inserts the person; false when the id is already enrolled in the group. */
export async function insertFacePerson(db: Executor, p: FacePersonRow): Promise<boolean> {
  const inserted = await db
    .insertInto('face_person')
    .values({
      group_id: p.groupId,
      person_id: p.personId,
      name: p.name,
      image_sha256: p.imageSha256,
      image_format: p.imageFormat,
      image_width: p.imageWidth,
      image_height: p.imageHeight,
    })
    .onConflict((oc) => oc.columns(['group_id', 'person_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function deleteFacePerson(db: Executor, groupId: string, personId: string): Promise<void> {
  await db.deleteFrom('face_person').where('group_id', '=', groupId).where('person_id', '=', personId).execute();
}

/** The person enrolled with exactly these image bytes; the latest enrolment when several were. */
export async function findFacePersonByImage(
  db: Executor,
  groupId: string,
  imageSha256: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('face_person')
    .select('person_id')
    .where('group_id', '=', groupId)
    .where('image_sha256', '=', imageSha256)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.person_id ?? null;
}
