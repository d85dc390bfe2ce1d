import { inject } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { loadMemberAccount } from '../../src/modules/member/member.repository.js';
import { faceUnavailable } from '../../src/platform/face/face.errors.js';
import { createFace, type FaceService } from '../../src/platform/face/index.js';
import { createLogSmsSender } from '../../src/platform/sms/log-sender.js';
import { createSmsNotifier } from '../../src/platform/sms/notify.js';
import { createSmsCodes } from '../../src/platform/sms/sms-codes.js';
import type { SmsServices } from '../../src/platform/sms/index.js';
import { openStore, type Store } from '../../src/platform/store/index.js';
import { facePng } from '../platform/face-images.js';
import { createMember, uniq } from '../helpers/factories.js';
import { issueFor } from '../helpers/staff.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';

export const PHOTO_HOST = 'photos.test';

/** Which face call fails, as a provider outage would; null for none. */
export type FaceFault = 'search' | 'createPerson' | 'deletePerson' | null;

/** Runs after a face call succeeded and before its caller goes on; `arg` is the photo (search, createPerson) or the person id (deletePerson). */
export type FaceHook = (call: Exclude<FaceFault, null>, arg: string) => Promise<void>;

export interface MemberTestApp {
  t: TestApp;
  store: Store;
  /** the SMS codes sent, by phone */
  lastCode(phone: string): string;
  sentTo(phone: string): number;
  /** the clock of the SMS code store: tests move it instead of sleeping */
  clock: { now: number };
  face: FaceService;
  /** the face call that fails, `times` times (then it works again) */
  faceFault: { on: FaceFault; times: number };
  /** a hook after each successful face call, to pause a request at a chosen step (races) */
  faceHook: { after: FaceHook | null };
  /** A fresh photo of a face (a PNG of its own bytes), or the bytes given, served at an https URL the face service reads. */
  photo(bytes?: Buffer): string;
  close(): Promise<void>;
}

/**
 * The app with a recording SMS sender on a movable clock and the local face registry wrapped so a
 * test can make one of its calls fail. Photos live in memory behind https://photos.test/….
 */
export async function createMemberTestApp(): Promise<MemberTestApp> {
  const db: TestDb = await openTestDatabase();
  const store = await openStore(process.env.REDIS_URL || null, `test:${inject('runId')}:${uniq('member')}:`);
  const clock = { now: Date.now() };
  const sender = createLogSmsSender({ info() {} });
  const sms: SmsServices = {
    sender,
    codes: createSmsCodes({ store, sender, bypassCode: null, now: () => clock.now }),
    notify: createSmsNotifier(sender, { warn() {} }),
  };

  const real = await createFace(loadConfig({}), { db: db.db });
  const photos = new Map<string, Buffer>();
  real.photos.register({
    handles: (url) => url.host === PHOTO_HOST,
    async read(url) {
      const bytes = photos.get(url.pathname);
      if (!bytes) throw new Error('no such photo');
      return bytes;
    },
  });
  const faceFault: { on: FaceFault; times: number } = { on: null, times: Infinity };
  const faceHook: { after: FaceHook | null } = { after: null };
  const failing =
    <A extends unknown[], R>(
      name: Exclude<FaceFault, null>,
      fn: (...args: A) => Promise<R>,
      key: (...args: A) => string,
    ) =>
    async (...args: A): Promise<R> => {
      if (faceFault.on === name && faceFault.times > 0) {
        faceFault.times -= 1;
        throw faceUnavailable(new Error(`test fault in ${name}`));
      }
      const result = await fn(...args);
      await faceHook.after?.(name, key(...args));
      return result;
    };
  const face: FaceService = {
    ...real,
    search: failing('search', real.search, (photo) => String(photo)),
    createPerson: failing('createPerson', real.createPerson, (p) => String(p.photo)),
    deletePerson: failing('deletePerson', real.deletePerson, (id) => id),
  };

  const t = await createTestApp({}, { db, store, services: { sms, face } });
  let seed = 0;
  return {
    t,
    store,
    clock,
    face,
    faceFault,
    faceHook,
    lastCode(phone) {
      const sms = sender.lastTo(phone);
      if (!sms) throw new Error(`no SMS was sent to ${phone}`);
      return sms.params.code;
    },
    sentTo: (phone) => sender.outbox.filter((m) => m.phone === phone).length,
    photo(bytes) {
      const path = `/${uniq('face')}.png`;
      photos.set(path, bytes ?? facePng(96 + (++seed % 50), 120, seed + Math.floor(Math.random() * 1e6)));
      return `https://${PHOTO_HOST}${path}`;
    },
    async close() {
      await t.close();
      await store.close();
      await db.close();
    },
  };
}

/** A member with a live mini-program session, as oauth2 would issue it. */
export async function memberSession(
  t: TestApp,
  cols: Parameters<typeof createMember>[1] = {},
): Promise<{ id: number; token: string; refreshToken: string }> {
  const id = await createMember(t.db, cols);
  const account = await loadMemberAccount(t.db, id);
  if (!account) throw new Error(`member ${id} cannot log in`);
  const issued = await issueFor(t, account, 'mp');
  return { id, token: issued.accessToken, refreshToken: issued.refreshToken };
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
let idSerial = 0;
/** A valid, unique 18-character resident ID number (Hangzhou Xihu district, born 1990-2009). */
export function idCardNumber(): string {
  idSerial += 1;
  const n = (Date.now() + idSerial * 7919 + Math.floor(Math.random() * 1e6)) % 1_000_000;
  const year = 1990 + (n % 20);
  const day = 1 + (Math.floor(n / 20) % 28);
  const month = 1 + (Math.floor(n / 560) % 12);
  const seq = String(Math.floor(n / 6720) % 1000).padStart(3, '0');
  const first17 = `330106${year}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}${seq}`;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * ID_WEIGHTS[i];
  return first17 + '10X98765432'[sum % 11];
}
