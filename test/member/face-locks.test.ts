import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFaceLocks } from '../../src/modules/member/contact-face.js';
import { MemberError } from '../../src/modules/member/member.errors.js';
import { openStore, type Store } from '../../src/platform/store/index.js';
import { testStorePrefix } from '../helpers/store-prefix.js';

/** The store locks of face enrolments (`face:enrol:<person id>`), on the store the tests run with. */
let store: Store;
beforeAll(async () => {
  store = await openStore(process.env.REDIS_URL || null, testStorePrefix('face-locks'));
});
afterAll(() => store?.close());

let n = 0;
const twoIds = (): [string, string] => [`X${++n}`, `Y${n}`];
const busy = expect.objectContaining({ errcode: MemberError.FACE_ENROLMENT_BUSY });

describe('face enrolment locks', () => {
  it('lets one of two requests over the same ids in opposite orders go on, every time', async () => {
    for (let round = 0; round < 10; round++) {
      const [x, y] = twoIds();
      const answers = await Promise.allSettled([
        withFaceLocks(store, [x, y], async () => 'x first'),
        withFaceLocks(store, [y, x], async () => 'y first'),
      ]);
      const ran = answers.filter((a) => a.status === 'fulfilled');
      expect(ran, `round ${round}`).toHaveLength(1);
      expect(answers.find((a) => a.status === 'rejected')).toEqual({ status: 'rejected', reason: busy });
    }
  });

  it('frees every id after the work, whether it succeeded or failed', async () => {
    const [x, y] = twoIds();
    await withFaceLocks(store, [y, x, y], async () => undefined);
    await expect(
      withFaceLocks(store, [x, y], async () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    await expect(withFaceLocks(store, [x, y], async () => 'again')).resolves.toBe('again');
  });

  it('keeps the lock another request took as the holder was releasing its own (expired) one', async () => {
    const [x] = twoIds();
    const lock = `face:enrol:${x}`;
    // Another request takes the expired lock at the holder's release: after a plain read of it,
    // before a compare-and-delete (which has no moment in between).
    let armed = false;
    const racing: Store = {
      ...store,
      async get(k) {
        const v = await store.get(k);
        if (armed && k === lock) await takeOver();
        return v;
      },
      async delIfValue(k, value) {
        if (armed && k === lock) await takeOver();
        return store.delIfValue(k, value);
      },
    };
    async function takeOver() {
      armed = false;
      await store.set(lock, 'another request', 60);
    }

    await withFaceLocks(racing, [x], async () => {
      armed = true;
    });
    expect(await store.get(lock)).toBe('another request');
    await store.del(lock);
  });
});
