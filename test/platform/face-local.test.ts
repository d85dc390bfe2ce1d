import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { AppError } from '../../src/platform/errors.js';
import { createFace, type FaceService } from '../../src/platform/face/index.js';
import { createFaceService } from '../../src/platform/face/face-service.js';
import { createLocalFaceBackend } from '../../src/platform/face/local-provider.js';
import { createPhotoReader } from '../../src/platform/face/photo-reader.js';
import { guardedLookup, createAddressPolicy, isPublicAddress } from '../../src/platform/face/photo-fetch.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';
import { uniq } from '../helpers/factories.js';
import { FACE_JPEG, facePng } from './face-images.js';

const MAX = 256 * 1024;
const URL_UNREADABLE =
  'the image could not be read from its URL: give a JPEG or PNG of at most 0.3 MiB at a public http(s) address';

/** Serves test images over HTTP, including the misbehaving kinds. */
function imageServer() {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    if (path === '/face.jpg') return void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(FACE_JPEG);
    if (path.startsWith('/png/'))
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(facePng(100, 120, Number(path.slice(5))));
    if (path === '/declared-big')
      return void res.writeHead(200, { 'content-length': String(MAX + 1) }).end(Buffer.alloc(MAX + 1));
    if (path === '/streamed-big') {
      res.writeHead(200, { 'content-type': 'image/png' });
      for (let i = 0; i < 8; i++) res.write(Buffer.alloc(64 * 1024, 1));
      return void res.end();
    }
    if (path === '/hang') return; // never answers
    if (path.startsWith('/redirect?'))
      return void res.writeHead(302, { location: decodeURIComponent(path.slice('/redirect?'.length)) }).end();
    if (path === '/secret') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('internal secret');
    res.writeHead(404).end('not found');
  });
  return {
    hits,
    async start() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const errorOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};

describe('the local face provider (registry in the database)', () => {
  let tdb: TestDb;
  let face: FaceService;
  let web: ReturnType<typeof imageServer>;
  let base: string;
  // The test server listens on loopback, which photo URLs may reach only when configured.
  const service = (groupId: string, timeoutMs = 5000, allowedHosts: string[] = ['127.0.0.1']) =>
    createFaceService(
      createLocalFaceBackend({ db: tdb.db, groupId }),
      createPhotoReader({ maxBytes: MAX, timeoutMs, allowedHosts }),
    );

  beforeAll(async () => {
    tdb = await openTestDatabase();
    face = service(uniq('g'));
    web = imageServer();
    base = await web.start();
  });
  afterAll(async () => {
    await web?.stop();
    await tdb?.close();
  });

  it('enrols a person and finds it by the same photo, however the photo is given', async () => {
    const photo = facePng(100, 120, 11);
    const personId = '11010519491231002X'; // contacts enrol under their identity number
    await face.createPerson({ personId, name: '张三', photo: photo.toString('base64') });
    const hit = { personId, score: 100 };
    expect(await face.search(photo)).toEqual(hit);
    expect(await face.search(photo.toString('base64'))).toEqual(hit);
    expect(await face.search(`data:image/png;base64,${photo.toString('base64')}`)).toEqual(hit);
    expect(await face.search(`${base}/png/11`)).toEqual(hit);
    const row = await tdb.db
      .selectFrom('face_person')
      .selectAll()
      .where('person_id', '=', personId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      name: '张三',
      image_format: 'png',
      image_width: 100,
      image_height: 120,
      image_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('answers null for a photo nobody was enrolled with', async () => {
    await face.createPerson({ personId: uniq('p'), name: 'A', photo: facePng(100, 120, 12) });
    expect(await face.search(facePng(100, 120, 13))).toBeNull();
    expect(await face.search(FACE_JPEG)).toBeNull();
  });

  it('deletes a person (an absent one too) and lets the id be enrolled again', async () => {
    const personId = uniq('p');
    const photo = facePng(100, 120, 21);
    await face.createPerson({ personId, name: 'B', photo });
    await face.deletePerson(personId);
    expect(await face.search(photo)).toBeNull();
    await expect(face.deletePerson(personId)).resolves.toBeUndefined();
    await expect(face.deletePerson(uniq('never'))).resolves.toBeUndefined();
    await face.createPerson({ personId, name: 'B again', photo: FACE_JPEG });
    expect(await face.search(FACE_JPEG)).toEqual({ personId, score: 100 });
    expect(await face.search(photo)).toBeNull();
  });

  it('refuses a person id that is already enrolled, also when two enrolments race', async () => {
    const personId = uniq('p');
    await face.createPerson({ personId, name: 'C', photo: facePng(100, 120, 31) });
    const again = await errorOf(face.createPerson({ personId, name: 'C2', photo: facePng(100, 120, 32) }));
    expect(again).toMatchObject({
      errcode: 1025000004,
      message: 'a face is already enrolled for this person: delete it first',
    });
    expect(await face.search(facePng(100, 120, 32))).toBeNull();

    const racing = uniq('p');
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((seed) =>
        face.createPerson({ personId: racing, name: 'R', photo: facePng(100, 120, 40 + seed) }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.errcode),
    ).toEqual([1025000004, 1025000004, 1025000004]);
  });

  it('keeps groups apart: another group neither finds nor blocks the person', async () => {
    const personId = uniq('p');
    const photo = facePng(100, 120, 51);
    await face.createPerson({ personId, name: 'D', photo });
    const other = service(uniq('other'));
    expect(await other.search(photo)).toBeNull();
    await other.createPerson({ personId, name: 'D', photo });
    await other.deletePerson(personId);
    expect(await face.search(photo)).toEqual({ personId, score: 100 });
  });

  it('answers the latest enrolment when two persons share one photo', async () => {
    const photo = facePng(100, 120, 61);
    const [first, second] = [uniq('p'), uniq('p')];
    await face.createPerson({ personId: first, name: 'E', photo });
    await face.createPerson({ personId: second, name: 'F', photo });
    expect(await face.search(photo)).toEqual({ personId: second, score: 100 });
  });

  it('detects one face in a sound JPEG or PNG of sane size, none otherwise', async () => {
    expect(await face.detectFace(facePng(100, 120))).toEqual({ faceCount: 1 });
    expect(await face.detectFace(FACE_JPEG)).toEqual({ faceCount: 1 });
    expect(await face.detectFace(facePng(64, 64))).toEqual({ faceCount: 1 });
    expect(await face.detectFace(facePng(63, 200))).toEqual({ faceCount: 0 });
    expect(await face.detectFace(FACE_JPEG.subarray(0, FACE_JPEG.length - 40))).toEqual({ faceCount: 0 });
    const png = facePng(100, 120);
    expect(await face.detectFace(png.subarray(0, png.length - 12))).toEqual({ faceCount: 0 });
    const corrupt = Buffer.from(png);
    corrupt[60] ^= 0xff;
    expect(await face.detectFace(corrupt)).toEqual({ faceCount: 0 });
    await expect(face.checkFaceImage(FACE_JPEG)).resolves.toBeUndefined();
    expect(await errorOf(face.checkFaceImage(facePng(32, 32)))).toMatchObject({
      errcode: 1025000001,
      message: 'no face found in the image',
    });
  });

  it('refuses to enrol or search with a photo that shows no face, and stores nothing', async () => {
    const personId = uniq('p');
    expect(await errorOf(face.createPerson({ personId, name: 'G', photo: facePng(40, 40) }))).toMatchObject({
      errcode: 1025000001,
    });
    expect(await errorOf(face.search(facePng(40, 40)))).toMatchObject({ errcode: 1025000001 });
    expect(await tdb.db.selectFrom('face_person').select('id').where('person_id', '=', personId).execute()).toEqual([]);
  });

  it.each([
    ['text', Buffer.from('hello, this is not an image'), 'the image must be a JPEG or PNG'],
    ['a GIF', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'the image must be a JPEG or PNG'],
    ['empty bytes', Buffer.alloc(0), 'the image is empty'],
    ['oversized bytes', Buffer.concat([FACE_JPEG, Buffer.alloc(MAX)]), 'the image is too large: at most 0.3 MiB'],
    ['oversized base64', Buffer.alloc(MAX + 10).toString('base64'), 'the image is too large: at most 0.3 MiB'],
    [
      'a string that is neither URL nor base64',
      'this is not base64!',
      'the image is neither an http(s) URL nor base64 data',
    ],
    ['a file: URL', 'file:///etc/passwd', 'the image URL must start with http:// or https://'],
    ['an ftp: URL', 'ftp://example.com/face.jpg', 'the image URL must start with http:// or https://'],
    ['a data: URL that is not base64', 'data:image/png,abc', 'a data: image must be base64 encoded'],
  ])('refuses %s with 1025000003', async (_, photo, message) => {
    expect(await errorOf(face.detectFace(photo))).toMatchObject({ errcode: 1025000003, message });
    expect(await errorOf(face.checkFaceImage(photo))).toMatchObject({ errcode: 1025000003 });
  });

  it('reads http(s) photos with a size cap and a timeout, answering one error for every failure', async () => {
    expect(await face.detectFace(`${base}/face.jpg`)).toEqual({ faceCount: 1 });
    for (const path of ['/declared-big', '/streamed-big', '/missing.png', '/secret']) {
      expect(await errorOf(face.detectFace(`${base}${path}`)), path).toMatchObject({
        errcode: 1025000003,
        message: URL_UNREADABLE,
      });
    }
    const started = Date.now();
    const slow = await errorOf(service('g', 100).detectFace(`${base}/hang`));
    expect(slow).toMatchObject({ errcode: 1025000003, message: URL_UNREADABLE });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reads photos of a registered URL space through its resolver instead of HTTP', async () => {
    const local = service(uniq('g'));
    const read: string[] = [];
    local.photos.register({
      handles: (url) => url.host === 'files.internal',
      async read(url) {
        read.push(url.pathname);
        return facePng(100, 120, 71);
      },
    });
    await local.createPerson({ personId: uniq('p'), name: 'H', photo: 'https://files.internal/u/1.png' });
    expect(read).toEqual(['/u/1.png']);
    expect(await local.search(facePng(100, 120, 71))).not.toBeNull();
    // other URLs still go over HTTP
    expect(await local.detectFace(`${base}/face.jpg`)).toEqual({ faceCount: 1 });
  });

  it('refuses malformed person ids and names with 400', async () => {
    for (const personId of ['', 'has space', 'x'.repeat(65), '身份证']) {
      expect(await errorOf(face.createPerson({ personId, name: 'I', photo: FACE_JPEG }))).toMatchObject({
        errcode: 400,
      });
    }
    expect(await errorOf(face.createPerson({ personId: uniq('p'), name: '  ', photo: FACE_JPEG }))).toMatchObject({
      errcode: 400,
    });
    expect(
      await errorOf(face.createPerson({ personId: uniq('p'), name: '名'.repeat(61), photo: FACE_JPEG })),
    ).toMatchObject({ errcode: 400 });
    expect(await errorOf(face.deletePerson('bad id'))).toMatchObject({ errcode: 400 });
  });

  it('is what FACE_PROVIDER=local (the default) builds, with FACE_GROUP_ID and FACE_IMAGE_MAX_BYTES', async () => {
    const groupId = uniq('cfg');
    const built = await createFace(loadConfig({ FACE_GROUP_ID: groupId, FACE_IMAGE_MAX_BYTES: '2048' }), {
      db: tdb.db,
    });
    expect(built.provider).toBe('local');
    expect(built.photos.maxBytes).toBe(2048);
    await built.createPerson({ personId: 'cfg-person', name: 'J', photo: FACE_JPEG });
    expect(
      await tdb.db.selectFrom('face_person').select('group_id').where('person_id', '=', 'cfg-person').execute(),
    ).toEqual([{ group_id: groupId }]);
    expect(await errorOf(built.detectFace(facePng(100, 120)))).toMatchObject({
      errcode: 1025000003,
      message: expect.stringContaining('too large'),
    });
  });
});

describe('photo URLs reach public addresses only (SSRF)', () => {
  let tdb: TestDb;
  let web: ReturnType<typeof imageServer>;
  let port: number;
  const reader = (allowedHosts: string[] = []) => createPhotoReader({ maxBytes: MAX, timeoutMs: 2000, allowedHosts });

  beforeAll(async () => {
    tdb = await openTestDatabase();
    web = imageServer();
    port = Number(new URL(await web.start()).port);
  });
  afterAll(async () => {
    await web?.stop();
    await tdb?.close();
  });

  it('classifies loopback, private, link-local, unique-local, CGNAT, unspecified, multicast and mapped addresses as not public', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fc00::1',
      'fd12::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      'nonsense',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(a), a).toBe(true);
  });

  it('refuses a loopback or internal URL by default without connecting, with the one URL error', async () => {
    const photos = reader();
    for (const url of [
      `http://127.0.0.1:${port}/face.jpg`,
      `http://localhost:${port}/face.jpg`,
      `http://[::1]:${port}/face.jpg`,
      `http://[::ffff:127.0.0.1]:${port}/face.jpg`,
      `http://0.0.0.0:${port}/face.jpg`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/x',
      'http://100.64.0.1/x',
      `http://2130706433:${port}/face.jpg`,
      `https://127.0.0.1:${port}/face.jpg`,
    ]) {
      const before = web.hits.length;
      const err = await errorOf(photos.read(url));
      expect(err, url).toMatchObject({ errcode: 1025000003, message: URL_UNREADABLE });
      expect(web.hits.length, url).toBe(before);
    }
  });

  it('refuses a redirect into a non-public address, checking every hop', async () => {
    // The first hop is allowed by its name, the redirect target (an address literal) is not.
    const photos = reader(['localhost']);
    expect((await photos.read(`http://localhost:${port}/face.jpg`)).length).toBe(FACE_JPEG.length);
    const before = web.hits.length;
    const target = encodeURIComponent(`http://127.0.0.1:${port}/face.jpg`);
    expect(await errorOf(photos.read(`http://localhost:${port}/redirect?${target}`))).toMatchObject({
      errcode: 1025000003,
      message: URL_UNREADABLE,
    });
    expect(web.hits.slice(before)).toEqual([`/redirect?${target}`]);
  });

  it('reads internal hosts the deployment allows by address, CIDR or name, redirects among them included', async () => {
    const url = `http://127.0.0.1:${port}/face.jpg`;
    expect((await reader(['127.0.0.1']).read(url)).equals(FACE_JPEG)).toBe(true);
    expect((await reader(['127.0.0.0/8']).read(url)).equals(FACE_JPEG)).toBe(true);
    expect(
      (
        await reader(['10.0.0.0/8', '127.0.0.0/8']).read(`http://127.0.0.1:${port}/redirect?${encodeURIComponent(url)}`)
      ).equals(FACE_JPEG),
    ).toBe(true);
    expect(await errorOf(reader(['10.0.0.0/8']).read(url))).toMatchObject({ message: URL_UNREADABLE });
  });

  it('resolves a name once, checks every address and hands the checked ones to the connection', async () => {
    const lookup = guardedLookup(createAddressPolicy([]));
    const refused = await new Promise<Error | null>((r) => lookup('localhost', { all: true }, (err) => r(err)));
    expect(refused?.message).toContain('localhost resolves to an address photos are not read from');
    const allowed = guardedLookup(createAddressPolicy(['127.0.0.1', '::1']));
    const got = await new Promise<unknown>((r, j) =>
      allowed('localhost', { all: true }, (err, addresses) => (err ? j(err) : r(addresses))),
    );
    expect(got).toEqual(
      expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })]),
    );
  });

  it('takes FACE_PHOTO_ALLOWED_HOSTS from the configuration and refuses a malformed entry', async () => {
    const url = `http://127.0.0.1:${port}/face.jpg`;
    expect(await errorOf((await createFace(loadConfig({}), { db: tdb.db })).detectFace(url))).toMatchObject({
      message: expect.stringContaining('public http(s) address'),
    });
    const built = await createFace(loadConfig({ FACE_PHOTO_ALLOWED_HOSTS: 'photos.internal, 127.0.0.1/32' }), {
      db: tdb.db,
    });
    expect(await built.detectFace(url)).toEqual({ faceCount: 1 });
    expect(() => loadConfig({ FACE_PHOTO_ALLOWED_HOSTS: '10.0.0.0/99' })).toThrow(ConfigError);
    expect(() => loadConfig({ FACE_PHOTO_ALLOWED_HOSTS: 'http://x/' })).toThrow(ConfigError);
  });
});
