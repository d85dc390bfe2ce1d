import { createHash } from 'node:crypto';
import type { Db } from '../db/database.js';
import { noFaceFound, personExists } from './face.errors.js';
import { deleteFacePerson, findFacePersonByImage, insertFacePerson } from './face.repository.js';
import type { FaceBackend, FaceImage } from './face-service.js';

/** Pixel bounds of a photo that can show a recognisable face (Tencent IAI wants ≥ 64 px too). */
export const LOCAL_FACE_MIN_PX = 64;
export const LOCAL_FACE_MAX_PX = 8000;

/**
 * The embedded face provider: a registry in the database that stores persons for real and matches a
 * search by the photo's content hash, so the same photo (the one stored at enrolment, re-read from
 * storage) finds its person. It does no face recognition: any well-formed JPEG or PNG of sane size
 * counts as showing one face. Enough for development, the demo and tests; production uses Tencent.
 */
export function createLocalFaceBackend(deps: { db: Db; groupId: string }): FaceBackend {
  const { db, groupId } = deps;
  const faceCount = ({ info }: FaceImage) =>
    info &&
    Math.min(info.width, info.height) >= LOCAL_FACE_MIN_PX &&
    Math.max(info.width, info.height) <= LOCAL_FACE_MAX_PX
      ? 1
      : 0;
  const requireFace = (image: FaceImage) => {
    if (faceCount(image) === 0 || !image.info) throw noFaceFound();
    return image.info;
  };
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  return {
    provider: 'local',
    async search(image) {
      requireFace(image);
      const personId = await findFacePersonByImage(db, groupId, sha256(image.bytes));
      return personId === null ? null : { personId, score: 100 };
    },
    async createPerson({ personId, name }, image) {
      const info = requireFace(image);
      const inserted = await insertFacePerson(db, {
        groupId,
        personId,
        name,
        imageSha256: sha256(image.bytes),
        imageFormat: info.format,
        imageWidth: info.width,
        imageHeight: info.height,
      });
      if (!inserted) throw personExists();
    },
    async deletePerson(personId) {
      await deleteFacePerson(db, groupId, personId);
    },
    async countFaces(image) {
      return faceCount(image);
    },
  };
}
