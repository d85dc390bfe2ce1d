import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/platform/errors.js';
import { createFace, type FaceService } from '../../src/platform/face/index.js';
import { createFaceService } from '../../src/platform/face/face-service.js';
import { createPhotoReader } from '../../src/platform/face/photo-reader.js';
import { createTencentFaceBackend, type TencentFaceOptions } from '../../src/platform/face/tencent-provider.js';
import {
  closedOrigin,
  FAKE_SECRET_ID,
  FAKE_SECRET_KEY,
  fakeTencentApi,
  type TencentAnswer,
  type TencentCall,
} from './fake-tencent-api.js';
import { FACE_JPEG, facePng } from './face-images.js';

/**
 * A stand-in for Tencent IAI 2020-03-03 with a real person registry: faces are told apart by their
 * base64 image, and some images provoke the API's documented errors.
 */
function iai() {
  const persons = new Map<string, { name: string; group: string; image: string }>();
  const special = new Map<string, TencentAnswer>();
  const error = (Code: string, Message: string): TencentAnswer => ({ error: { Code, Message } });
  const handle = (call: TencentCall): TencentAnswer => {
    if (call.version !== '2020-03-03') return error('InvalidParameter', 'unsupported version');
    const b = call.body;
    const forced = typeof b.Image === 'string' ? special.get(b.Image) : undefined;
    if (forced) return forced;
    switch (call.action) {
      case 'CreatePerson': {
        if (b.GroupId !== 'tc-faces') return error('InvalidParameterValue.GroupIdNotExist', 'group does not exist');
        if (!/^[\p{Script=Han}A-Za-z0-9_-]{1,60}$/u.test(b.PersonName))
          return error('InvalidParameterValue.PersonNameIllegal', 'illegal name');
        if (persons.has(b.PersonId))
          return error('InvalidParameterValue.PersonIdAlreadyExist', 'person id already exists');
        persons.set(b.PersonId, { name: b.PersonName, group: b.GroupId, image: b.Image });
        return {
          ok: {
            FaceId: `face-${persons.size}`,
            FaceRect: { X: 10, Y: 10, Width: 60, Height: 60 },
            SimilarPersonId: '',
            FaceModelVersion: '3.0',
          },
        };
      }
      case 'DeletePerson':
        if (!persons.delete(b.PersonId))
          return error('InvalidParameterValue.PersonIdNotExist', 'person id does not exist');
        return { ok: {} };
      case 'SearchFaces': {
        const inGroup = [...persons].filter(([, p]) => b.GroupIds.includes(p.group));
        if (inGroup.length === 0) return error('InvalidParameterValue.NoFaceInGroups', 'no face in the groups');
        const candidates = inGroup
          .map(([id, p]) => ({
            PersonId: id,
            FaceId: 'f',
            Score: p.image === b.Image ? 97.5 : 42,
            PersonName: null,
            Gender: null,
            PersonGroupInfos: null,
          }))
          .filter((c) => c.Score >= (b.FaceMatchThreshold ?? 0))
          .sort((x, y) => y.Score - x.Score)
          .slice(0, b.MaxPersonNum ?? 5);
        return {
          ok: {
            Results: [{ Candidates: candidates, FaceRect: { X: 1, Y: 1, Width: 50, Height: 50 }, RetCode: 0 }],
            FaceNum: inGroup.length,
            FaceModelVersion: '3.0',
          },
        };
      }
      case 'DetectFace':
        return {
          ok: {
            ImageWidth: 100,
            ImageHeight: 120,
            FaceInfos: [{ X: 1, Y: 2, Width: 60, Height: 60 }],
            FaceModelVersion: '3.0',
          },
        };
      default:
        return error('InvalidAction', 'unknown action');
    }
  };
  return { api: fakeTencentApi(handle), persons, special };
}

const errorOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};

describe('Tencent IAI face provider against a fake endpoint', () => {
  const fake = iai();
  let options: TencentFaceOptions;
  let face: FaceService;
  const b64 = (bytes: Buffer) => bytes.toString('base64');
  const noFacePng = facePng(100, 120, 901);
  const twoFacesPng = facePng(100, 120, 902);
  const undecodablePng = facePng(100, 120, 903);
  const hangPng = facePng(100, 120, 904);
  const throttledPng = facePng(100, 120, 905);

  beforeAll(async () => {
    const endpoint = await fake.api.start();
    options = {
      secretId: FAKE_SECRET_ID,
      secretKey: FAKE_SECRET_KEY,
      region: 'ap-shanghai',
      endpoint,
      groupId: 'tc-faces',
      matchThreshold: 80,
      timeoutMs: 2000,
    };
    face = createFaceService(createTencentFaceBackend(options), createPhotoReader({ maxBytes: 1024 * 1024 }));
    fake.special.set(b64(noFacePng), {
      error: { Code: 'InvalidParameterValue.NoFaceInPhoto', Message: '图片中没有人脸。' },
    });
    fake.special.set(b64(undecodablePng), {
      error: { Code: 'FailedOperation.ImageDecodeFailed', Message: '图片解码失败。' },
    });
    fake.special.set(b64(throttledPng), {
      error: { Code: 'RequestLimitExceeded', Message: '请求的次数超过了频率限制。' },
    });
    fake.special.set(b64(hangPng), { hang: true });
    fake.special.set(b64(twoFacesPng), {
      ok: { ImageWidth: 100, ImageHeight: 120, FaceInfos: [{ X: 1 }, { X: 50 }], FaceModelVersion: '3.0' },
    });
  });
  afterAll(() => fake.api.stop());

  it('CreatePerson: enrols into the configured group with the photo as base64, signed for the region', async () => {
    await face.createPerson({ personId: '110105194912310021', name: '张三', photo: FACE_JPEG });
    const call = fake.api.calls.at(-1)!;
    expect(call).toMatchObject({ action: 'CreatePerson', version: '2020-03-03', region: 'ap-shanghai' });
    expect(call.body).toEqual({
      GroupId: 'tc-faces',
      PersonId: '110105194912310021',
      PersonName: '张三',
      Image: b64(FACE_JPEG),
      UniquePersonControl: 0,
    });
    expect(fake.persons.get('110105194912310021')).toMatchObject({ name: '张三', group: 'tc-faces' });
  });

  it('CreatePerson: strips what IAI refuses from the name, and refuses an id already enrolled', async () => {
    await face.createPerson({ personId: 'p-dot', name: '买买提·艾力 Jr.', photo: facePng(100, 120, 2) });
    expect(fake.persons.get('p-dot')!.name).toBe('买买提艾力Jr');
    const again = await errorOf(face.createPerson({ personId: 'p-dot', name: 'x', photo: facePng(100, 120, 3) }));
    expect(again).toMatchObject({ errcode: 1025000004 });
  });

  it('SearchFaces: answers the best candidate at or above the threshold, null below it or in an empty group', async () => {
    const photo = facePng(100, 120, 10);
    await face.createPerson({ personId: 'p-search', name: 'S', photo });
    expect(await face.search(photo)).toEqual({ personId: 'p-search', score: 97.5 });
    expect(fake.api.calls.at(-1)!.body).toEqual({
      GroupIds: ['tc-faces'],
      Image: b64(photo),
      MaxFaceNum: 1,
      MaxPersonNum: 1,
      NeedPersonInfo: 0,
      FaceMatchThreshold: 80,
    });
    expect(await face.search(facePng(100, 120, 11))).toBeNull();

    const lenient = createFaceService(
      createTencentFaceBackend({ ...options, matchThreshold: 40 }),
      createPhotoReader({ maxBytes: 1024 * 1024 }),
    );
    expect(await lenient.search(facePng(100, 120, 11))).toMatchObject({ score: 42 });

    const empty = createFaceService(
      createTencentFaceBackend({ ...options, groupId: 'empty-group' }),
      createPhotoReader({ maxBytes: 1024 * 1024 }),
    );
    expect(await empty.search(photo)).toBeNull();
  });

  it('DeletePerson: removes the person; an unknown id is fine', async () => {
    const photo = facePng(100, 120, 20);
    await face.createPerson({ personId: 'p-del', name: 'D', photo });
    await face.deletePerson('p-del');
    expect(fake.api.calls.at(-1)).toMatchObject({ action: 'DeletePerson', body: { PersonId: 'p-del' } });
    expect(fake.persons.has('p-del')).toBe(false);
    await expect(face.deletePerson('p-del')).resolves.toBeUndefined();
    await face.createPerson({ personId: 'p-del', name: 'D', photo });
    expect(await face.search(photo)).toMatchObject({ personId: 'p-del' });
  });

  it('DetectFace: counts the faces, and none is an answer rather than an error', async () => {
    expect(await face.detectFace(facePng(100, 120, 30))).toEqual({ faceCount: 1 });
    expect(fake.api.calls.at(-1)).toMatchObject({
      action: 'DetectFace',
      body: { MaxFaceNum: 10, NeedFaceAttributes: 0, NeedQualityDetection: 0 },
    });
    expect(await face.detectFace(twoFacesPng)).toEqual({ faceCount: 2 });
    expect(await face.detectFace(noFacePng)).toEqual({ faceCount: 0 });
    await expect(face.checkFaceImage(twoFacesPng)).resolves.toBeUndefined();
    expect(await errorOf(face.checkFaceImage(noFacePng))).toMatchObject({
      errcode: 1025000001,
      message: 'no face found in the image',
    });
  });

  it('maps no face and undecodable images to their errors on every action', async () => {
    expect(await errorOf(face.search(noFacePng))).toMatchObject({ errcode: 1025000001 });
    expect(await errorOf(face.createPerson({ personId: 'p-none', name: 'N', photo: noFacePng }))).toMatchObject({
      errcode: 1025000001,
    });
    for (const call of [face.search(undecodablePng), face.detectFace(undecodablePng)]) {
      expect(await errorOf(call)).toMatchObject({
        errcode: 1025000003,
        message: 'the face service could not read the image: send a clear JPEG or PNG',
      });
    }
    // never sent: only JPEG and PNG go to the service
    const before = fake.api.calls.length;
    expect(await errorOf(face.detectFace(Buffer.from('GIF89a-not-sent')))).toMatchObject({ errcode: 1025000003 });
    expect(fake.api.calls.length).toBe(before);
  });

  it('answers 1025000002 without internals for throttling, refused credentials, an unreachable or silent endpoint', async () => {
    const check = async (p: Promise<unknown>, logged: string) => {
      const err = await errorOf(p);
      expect(err).toMatchObject({
        errcode: 1025000002,
        message: 'the face service is unavailable, please try again later',
        httpStatus: 200,
      });
      expect(String((err.cause as Error).message)).toContain(logged);
      expect(String((err.cause as Error).message)).not.toContain(FAKE_SECRET_KEY);
    };
    await check(face.search(throttledPng), 'RequestLimitExceeded');
    const wrongKey = createFaceService(
      createTencentFaceBackend({ ...options, secretKey: 'not-the-key' }),
      createPhotoReader({ maxBytes: 1024 * 1024 }),
    );
    await check(wrongKey.deletePerson('p-x'), 'AuthFailure.SignatureFailure');
    const badGroup = createFaceService(
      createTencentFaceBackend({ ...options, groupId: 'missing' }),
      createPhotoReader({ maxBytes: 1024 * 1024 }),
    );
    await check(badGroup.createPerson({ personId: 'p-g', name: 'G', photo: FACE_JPEG }), 'GroupIdNotExist');
    const down = createFaceService(
      createTencentFaceBackend({ ...options, endpoint: await closedOrigin() }),
      createPhotoReader({ maxBytes: 1024 * 1024 }),
    );
    await check(down.detectFace(FACE_JPEG), 'DetectFace');
    const started = Date.now();
    const impatient = createFaceService(
      createTencentFaceBackend({ ...options, timeoutMs: 100 }),
      createPhotoReader({ maxBytes: 1024 * 1024 }),
    );
    await check(impatient.search(hangPng), 'SearchFaces');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('is what FACE_PROVIDER=tencent builds from TENCENT_* and FACE_* settings', async () => {
    const built = await createFace(
      loadConfig({
        FACE_PROVIDER: 'tencent',
        TENCENT_SECRET_ID: FAKE_SECRET_ID,
        TENCENT_SECRET_KEY: FAKE_SECRET_KEY,
        TENCENT_REGION: 'ap-beijing',
        TENCENT_IAI_ENDPOINT: options.endpoint,
        FACE_GROUP_ID: 'tc-faces',
        FACE_MATCH_THRESHOLD: '98',
      }),
      { db: null as never }, // the Tencent provider never touches the database
    );
    expect(built.provider).toBe('tencent');
    const photo = facePng(100, 120, 40);
    await built.createPerson({ personId: 'p-cfg', name: 'C', photo });
    expect(fake.api.calls.at(-1)!.region).toBe('ap-beijing');
    // 97.5 is below the configured 98
    expect(await built.search(photo)).toBeNull();
    expect(fake.api.calls.at(-1)!.body.FaceMatchThreshold).toBe(98);
  });
});
