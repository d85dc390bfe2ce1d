import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/platform/store/memory-store.js';
import { createRedisStore } from '../../src/platform/store/redis-store.js';
import type { Store } from '../../src/platform/store/store.js';
import { sleep } from '../helpers/platform-fixtures.js';
import { testStorePrefix } from '../helpers/store-prefix.js';

const runPrefix = testStorePrefix('store');

interface Backend {
  name: string;
  /** Two handles on one store: the same object in memory, two connections on Redis. */
  open(): Promise<[Store, Store]>;
  /** Lets time pass: the in-process store runs on a clock the test moves; Redis keeps real time. */
  pass(ms: number): Promise<void>;
}

let memoryNow = 1_000_000;
const backends: Backend[] = [
  {
    name: 'memory',
    async open() {
      const s = createMemoryStore(1000, () => memoryNow);
      return [s, s];
    },
    async pass(ms) {
      memoryNow += ms;
    },
  },
];
if (process.env.REDIS_URL) {
  const url = process.env.REDIS_URL;
  backends.push({
    name: 'redis',
    open: async () => [await createRedisStore(url, runPrefix), await createRedisStore(url, runPrefix)],
    pass: sleep,
  });
}

describe.each(backends)('the $name store', (backend) => {
  let store: Store;
  let other: Store;
  let n = 0;
  const key = (name: string) => `${name}:${++n}`;

  beforeAll(async () => {
    [store, other] = await backend.open();
  });
  afterAll(async () => {
    await store?.close();
    if (other !== store) await other?.close();
  });

  it('answers its kind and ping', async () => {
    expect(store.kind).toBe(backend.name);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('answers each of many commands issued at once with its own reply (Redis sends them in one write)', async () => {
    const keys = Array.from({ length: 200 }, () => key('batch'));
    await Promise.all(keys.map((k, i) => store.set(k, `value ${i}`, 60)));
    const [read, taken, counted] = await Promise.all([
      Promise.all(keys.map((k) => store.get(k))),
      Promise.all(keys.slice(0, 50).map((k) => store.take(k))),
      Promise.all(keys.slice(0, 20).map(() => store.incr(keys[199] + ':n', 60))),
    ]);
    expect(read).toEqual(keys.map((_, i) => `value ${i}`));
    expect(taken).toEqual(keys.slice(0, 50).map((_, i) => `value ${i}`));
    expect([...counted].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await store.get(keys[0])).toBeNull();
  });

  it('gets what was set, null for a missing key, and forgets a deleted key', async () => {
    const k = key('kv');
    expect(await store.get(k)).toBeNull();
    await store.set(k, 'value 值', 60);
    expect(await store.get(k)).toBe('value 值');
    expect(await other.get(k)).toBe('value 值');
    await store.set(k, 'replaced', 60);
    expect(await store.get(k)).toBe('replaced');
    await store.del(k);
    expect(await store.get(k)).toBeNull();
    await store.del(k);
  });

  it('expires a value after its ttl', async () => {
    const k = key('ttl');
    await store.set(k, 'short', 1);
    const long = key('ttl-long');
    await store.set(long, 'long', 30);
    expect(await store.get(k)).toBe('short');
    await backend.pass(1_200);
    expect(await store.get(k)).toBeNull();
    expect(await store.get(long)).toBe('long');
  });

  it('sets only an absent key with setIfAbsent, and again once it expired', async () => {
    const k = key('nx');
    expect(await store.setIfAbsent(k, 'first', 1)).toBe(true);
    expect(await other.setIfAbsent(k, 'second', 1)).toBe(false);
    expect(await store.get(k)).toBe('first');
    await backend.pass(1_200);
    expect(await store.setIfAbsent(k, 'third', 1)).toBe(true);
    expect(await store.get(k)).toBe('third');
  });

  it('deletes with delIfValue only while the key holds the value', async () => {
    const k = key('cad');
    expect(await store.delIfValue(k, 'mine')).toBe(false);
    await store.set(k, 'theirs', 60);
    expect(await other.delIfValue(k, 'mine')).toBe(false);
    expect(await store.get(k)).toBe('theirs');
    expect(await other.delIfValue(k, 'theirs')).toBe(true);
    expect(await store.get(k)).toBeNull();
    expect(await store.delIfValue(k, 'theirs')).toBe(false);
  });

  it('keeps with delIfValue a value set again after the given one expired (a lock taken over)', async () => {
    const k = key('cad-ttl');
    expect(await store.setIfAbsent(k, 'first', 1)).toBe(true);
    await backend.pass(1_200);
    expect(await store.delIfValue(k, 'first')).toBe(false);
    expect(await other.setIfAbsent(k, 'second', 60)).toBe(true);
    expect(await store.delIfValue(k, 'first')).toBe(false);
    expect(await store.get(k)).toBe('second');
    // one winner among concurrent compare-and-deletes of the same value
    const both = await Promise.all([store.delIfValue(k, 'second'), other.delIfValue(k, 'second')]);
    expect(both.filter(Boolean)).toEqual([true]);
  });

  it('hands a value out once with take', async () => {
    const k = key('take');
    await store.set(k, 'code', 60);
    const [a, b] = await Promise.all([store.take(k), other.take(k)]);
    expect([a, b].filter((v) => v !== null)).toEqual(['code']);
    expect(await store.take(k)).toBeNull();
    expect(await store.get(k)).toBeNull();
  });

  it('counts with incr inside a window that the first increment opens and later ones do not extend', async () => {
    const k = key('incr');
    expect(await store.incr(k, 1)).toBe(1);
    expect(await other.incr(k, 1)).toBe(2);
    await backend.pass(600);
    expect(await store.incr(k, 1)).toBe(3);
    await backend.pass(700);
    // 1.3 s after the window opened: a new window, although the last increment was 0.7 s ago
    expect(await store.incr(k, 1)).toBe(1);
  });

  it('counts concurrent increments exactly', async () => {
    const k = key('incr-many');
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? store : other).incr(k, 60)));
    expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('delivers published messages to every subscriber of the channel, and only of that channel', async () => {
    const channel = key('chan');
    const gotA: string[] = [];
    const gotB: string[] = [];
    const gotElse: string[] = [];
    await store.subscribe(channel, (m) => gotA.push(m));
    await other.subscribe(channel, (m) => gotB.push(m));
    await other.subscribe(key('chan-else'), (m) => gotElse.push(m));
    await store.publish(channel, 'hello');
    await other.publish(channel, 'again');
    await expect.poll(() => gotA.length + gotB.length, { timeout: 2_000, interval: 5 }).toBe(4);
    expect(gotA).toEqual(['hello', 'again']);
    expect(gotB).toEqual(['hello', 'again']);
    expect(gotElse).toEqual([]);
  });
});

describe.runIf(!!process.env.REDIS_URL)('redis prefixes', () => {
  it('keep deployments apart: keys (read or compared and deleted) and channels of another prefix are not seen', async () => {
    const url = process.env.REDIS_URL!;
    const a = await createRedisStore(url, `${runPrefix}a:`);
    const b = await createRedisStore(url, `${runPrefix}b:`);
    try {
      await a.set('shared-name', 'of a', 60);
      expect(await b.get('shared-name')).toBeNull();
      expect(await b.delIfValue('shared-name', 'of a')).toBe(false);
      expect(await a.get('shared-name')).toBe('of a');
      const got: string[] = [];
      await b.subscribe('events', (m) => got.push(m));
      await a.publish('events', 'from a');
      await b.publish('events', 'from b');
      await expect.poll(() => got, { timeout: 2_000, interval: 5 }).toEqual(['from b']);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
