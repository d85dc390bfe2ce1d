import { imageUnreadable, invalidPerson, noFaceFound } from './face.errors.js';
import { readImageInfo, sniffImageFormat, type ImageInfo } from './image-format.js';
import type { Photo, PhotoReader } from './photo-reader.js';

export interface FaceMatch {
  personId: string;
  /** 0–100; only matches at or above the configured threshold are answered */
  score: number;
}

export interface NewPerson {
  /** Unique in the group: contacts use the identity number. 1–64 letters, digits and -%@#&_. */
  personId: string;
  name: string;
  photo: Photo;
}

/**
 * The face service of member contacts, face check-in and the upload face check (docs/architecture.md §2).
 * Treat it as the external service it may be: call it outside database transactions (the local
 * registry writes through its own connection, and PGlite is one session).
 *
 * Errors are AppErrors: 1_025_000_001 no face in the image, 1_025_000_002 service unavailable (the
 * cause is logged), 1_025_000_003 image unreadable, not JPEG/PNG or too large, 1_025_000_004 person
 * id already enrolled, 400 for a malformed person id or name.
 */
export interface FaceService {
  readonly provider: 'local' | 'tencent';
  /** Reads photos given as URLs; object storage registers a resolver for its own URLs here. */
  readonly photos: PhotoReader;
  /** The enrolled person whose face best matches the photo's, or null when none reaches the threshold. */
  search(photo: Photo): Promise<FaceMatch | null>;
  /** Enrols a person with the photo's face. An id already enrolled is refused (delete it first), never replaced. */
  createPerson(person: NewPerson): Promise<void>;
  /** Removes the person and its faces; an unknown id is not an error. */
  deletePerson(personId: string): Promise<void>;
  /** How many faces the photo shows (0 when none). */
  detectFace(photo: Photo): Promise<{ faceCount: number }>;
  /** Passes when the photo is a JPEG or PNG showing at least one face (uploadWithFaceCheck). */
  checkFaceImage(photo: Photo): Promise<void>;
}

/** A photo read and recognised as JPEG or PNG; `info` is null when its structure is broken. */
export interface FaceImage {
  bytes: Buffer;
  info: ImageInfo | null;
}

/** What a provider implements; the shared checks (reading, format, ids) stay in one place. */
export interface FaceBackend {
  readonly provider: FaceService['provider'];
  search(image: FaceImage): Promise<FaceMatch | null>;
  createPerson(person: { personId: string; name: string }, image: FaceImage): Promise<void>;
  deletePerson(personId: string): Promise<void>;
  countFaces(image: FaceImage): Promise<number>;
}

// Tencent IAI's rule for person ids; the local registry keeps it so either provider accepts the same ids.
const PERSON_ID = /^[A-Za-z0-9\-%@#&_]{1,64}$/;
const NAME_MAX = 60;

function checkPersonId(personId: string): string {
  if (typeof personId !== 'string' || !PERSON_ID.test(personId)) {
    throw invalidPerson('the face person id must be 1-64 letters, digits or -%@#&_');
  }
  return personId;
}

export function createFaceService(backend: FaceBackend, photos: PhotoReader): FaceService {
  async function load(photo: Photo): Promise<FaceImage> {
    const bytes = await photos.read(photo);
    if (!sniffImageFormat(bytes)) throw imageUnreadable('the image must be a JPEG or PNG');
    return { bytes, info: readImageInfo(bytes) };
  }

  return {
    provider: backend.provider,
    photos,
    async search(photo) {
      return backend.search(await load(photo));
    },
    async createPerson({ personId, name, photo }) {
      checkPersonId(personId);
      const label = (name ?? '').trim();
      if (label === '' || [...label].length > NAME_MAX)
        throw invalidPerson(`the face person name must be 1-${NAME_MAX} characters`);
      await backend.createPerson({ personId, name: label }, await load(photo));
    },
    async deletePerson(personId) {
      await backend.deletePerson(checkPersonId(personId));
    },
    async detectFace(photo) {
      return { faceCount: await backend.countFaces(await load(photo)) };
    },
    async checkFaceImage(photo) {
      if ((await backend.countFaces(await load(photo))) === 0) throw noFaceFound();
    },
  };
}
