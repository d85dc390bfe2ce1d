import { CommonClient } from 'tencentcloud-sdk-nodejs-common';
import {
  TENCENT_TIMEOUT_MS,
  TencentApiError,
  tencentErrorCode,
  tencentProfile,
  type TencentAccount,
} from '../tencent/cloud-api.js';
import { faceUnavailable, imageUnreadable, noFaceFound, personExists } from './face.errors.js';
import type { FaceBackend, FaceImage, FaceMatch } from './face-service.js';

export const IAI_VERSION = '2020-03-03';

export interface TencentFaceOptions extends TencentAccount {
  /** TENCENT_IAI_ENDPOINT: a host or an http(s) origin */
  endpoint: string;
  groupId: string;
  /** FACE_MATCH_THRESHOLD: the least SearchFaces score that counts as the same person */
  matchThreshold: number;
  timeoutMs?: number;
}

const NO_FACE = new Set([
  'InvalidParameterValue.NoFaceInPhoto',
  'FailedOperation.ImageResolutionTooSmall',
  'FailedOperation.FaceSizeTooSmall',
  'FailedOperation.FaceQualityNotQualified',
  'FailedOperation.ImageFacedetectFailed',
]);
const UNREADABLE = new Set([
  'FailedOperation.ImageDecodeFailed',
  'FailedOperation.ImageSizeExceed',
  'FailedOperation.ImageResolutionExceed',
  'InvalidParameterValue.ImageEmpty',
  'InvalidParameterValue.ImageEmptyError',
]);
const PERSON_EXISTS = new Set([
  'InvalidParameterValue.PersonIdAlreadyExist',
  'InvalidParameterValue.PersonExistInGroup',
  'FailedOperation.GroupPersonMapExist',
]);

/** IAI person names allow Chinese and Latin letters, digits, - and _ only; the name is a label, so the rest goes. */
function iaiName(name: string, personId: string): string {
  const kept = [...name.replace(/[^\p{Script=Han}A-Za-z0-9_-]/gu, '')].slice(0, 60).join('');
  return kept || personId;
}

interface SearchAnswer {
  Results?: Array<{ Candidates?: Array<{ PersonId?: string; Score?: number }>; RetCode?: number }>;
}

/** Tencent Cloud IAI (face recognition, API 2020-03-03) through the SDK's CommonClient. */
export function createTencentFaceBackend(opts: TencentFaceOptions): FaceBackend {
  const { host, profile } = tencentProfile(opts.endpoint, opts.timeoutMs ?? TENCENT_TIMEOUT_MS);
  const client = new CommonClient(host, IAI_VERSION, {
    credential: { secretId: opts.secretId, secretKey: opts.secretKey },
    region: opts.region,
    profile,
  });

  /** Calls an action; Tencent's known answers become domain errors, anything else "unavailable". */
  async function call<T>(action: string, params: object, accept: Record<string, () => T> = {}): Promise<T> {
    try {
      return (await client.request(action, params)) as T;
    } catch (err) {
      const code = tencentErrorCode(err);
      if (code !== null && accept[code]) return accept[code]();
      if (code !== null && NO_FACE.has(code)) throw noFaceFound();
      if (code !== null && UNREADABLE.has(code))
        throw imageUnreadable('the face service could not read the image: send a clear JPEG or PNG');
      if (code !== null && PERSON_EXISTS.has(code)) throw personExists();
      throw faceUnavailable(TencentApiError.from(action, err));
    }
  }

  const base64 = (image: FaceImage) => image.bytes.toString('base64');

  return {
    provider: 'tencent',
    async search(image) {
      const answer = await call<SearchAnswer | null>(
        'SearchFaces',
        {
          GroupIds: [opts.groupId],
          Image: base64(image),
          MaxFaceNum: 1,
          MaxPersonNum: 1,
          NeedPersonInfo: 0,
          FaceMatchThreshold: opts.matchThreshold,
        },
        // An empty group has nobody to match.
        { 'InvalidParameterValue.NoFaceInGroups': () => null },
      );
      const result = answer?.Results?.[0];
      const best = result && (result.RetCode ?? 0) === 0 ? result.Candidates?.[0] : undefined;
      if (
        !best ||
        typeof best.PersonId !== 'string' ||
        typeof best.Score !== 'number' ||
        best.Score < opts.matchThreshold
      )
        return null;
      return { personId: best.PersonId, score: best.Score } satisfies FaceMatch;
    },
    async createPerson({ personId, name }, image) {
      await call('CreatePerson', {
        GroupId: opts.groupId,
        PersonId: personId,
        PersonName: iaiName(name, personId),
        Image: base64(image),
        // 0: keep a person even when the same face is enrolled under another id (a contact may be re-added).
        UniquePersonControl: 0,
      });
    },
    async deletePerson(personId) {
      await call('DeletePerson', { PersonId: personId }, { 'InvalidParameterValue.PersonIdNotExist': () => undefined });
    },
    async countFaces(image) {
      const answer = await call<{ FaceInfos?: unknown[] } | null>(
        'DetectFace',
        { Image: base64(image), MaxFaceNum: 10, NeedFaceAttributes: 0, NeedQualityDetection: 0 },
        // Counting faces, "none" (or too small to hold one) is the answer, not an error.
        Object.fromEntries([...NO_FACE].map((code) => [code, () => null])),
      );
      return Array.isArray(answer?.FaceInfos) ? answer.FaceInfos.length : 0;
    },
  };
}
