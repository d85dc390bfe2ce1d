import { describe, expect, it } from 'vitest';
import { LocalSessions, SESSION_DROP_CHANNEL } from '../../src/platform/auth/local-sessions.js';
import type { Session } from '../../src/platform/auth/tokens.js';
import { createMemoryStore } from '../../src/platform/store/memory-store.js';
import type { Store } from '../../src/platform/store/store.js';

/** The in-process store, with the connection events of a shared one that the test fires itself. */
function storeWithConnection(): { store: Store; lose(): void; regain(): void } {
  const inner = createMemoryStore();
  const lost: Array<() => void> = [];
  const regained: Array<() => void> = [];
  const store: Store = { ...inner, onDisconnect: (h) => lost.push(h), onReconnect: (h) => regained.push(h) };
  return { store, lose: () => lost.forEach((h) => h()), regain: () => regained.forEach((h) => h()) };
}

const session = (expiresAt = Date.now() + 60_000): Session => ({
  account: {
    id: 7,
    kind: 'admin',
    name: 'staff',
    userType: 1,
    merchantId: null,
    shopId: null,
    permissions: ['region:read'],
  },
  channel: 'manage',
  sessionId: 's1',
  expiresAt,
});

describe('sessions kept in process memory', () => {
  it('keeps a session read from the store, frozen, until its access token expires', async () => {
    const { store } = storeWithConnection();
    const local = await LocalSessions.create(store, { ttlMs: 60_000, max: 10 });
    const kept = local.keep('h1', session(), local.mark());
    expect(local.get('h1', Date.now())).toBe(kept);
    expect(Object.isFrozen(kept.account.permissions)).toBe(true);
    expect(() => (kept.account.permissions as string[]).push('member:write')).toThrow(TypeError);

    local.keep('h2', session(Date.now() + 1_000), local.mark());
    expect(local.get('h2', Date.now())).toBeDefined();
    expect(local.get('h2', Date.now() + 1_000)).toBeUndefined();
    // seen expired once, it is gone
    expect(local.get('h2', Date.now())).toBeUndefined();
  });

  it('keeps a session no longer than its time limit', async () => {
    const { store } = storeWithConnection();
    const local = await LocalSessions.create(store, { ttlMs: 50, max: 10 });
    local.keep('h1', session(), local.mark());
    expect(local.get('h1', Date.now())).toBeDefined();
    await new Promise((r) => setTimeout(r, 80));
    expect(local.get('h1', Date.now())).toBeUndefined();
  });

  it('drops what another instance ended, and keeps nothing read before a drop arrived', async () => {
    const { store } = storeWithConnection();
    const local = await LocalSessions.create(store, { ttlMs: 60_000, max: 10 });
    local.keep('h1', session(), local.mark());
    await store.publish(SESSION_DROP_CHANNEL, 'h0,h1');
    expect(local.get('h1', Date.now())).toBeUndefined();

    // a read of the store that began before the message: what it read may be the ended session
    const mark = local.mark();
    await store.publish(SESSION_DROP_CHANNEL, 'h2');
    local.keep('h2', session(), mark);
    expect(local.get('h2', Date.now())).toBeUndefined();
    local.keep('h2', session(), local.mark());
    expect(local.get('h2', Date.now())).toBeDefined();
  });

  it('keeps nothing while the subscription is down, and forgets what it had', async () => {
    const { store, lose, regain } = storeWithConnection();
    const local = await LocalSessions.create(store, { ttlMs: 60_000, max: 10 });
    local.keep('h1', session(), local.mark());
    lose();
    expect(local.get('h1', Date.now())).toBeUndefined();
    local.keep('h1', session(), local.mark());
    expect(local.get('h1', Date.now())).toBeUndefined();
    // a read that began while it was down is not kept after it came back either
    const mark = local.mark();
    regain();
    local.keep('h1', session(), mark);
    expect(local.get('h1', Date.now())).toBeUndefined();
    local.keep('h1', session(), local.mark());
    expect(local.get('h1', Date.now())).toBeDefined();
  });

  it('holds at most `max` sessions', async () => {
    const { store } = storeWithConnection();
    const local = await LocalSessions.create(store, { ttlMs: 60_000, max: 2 });
    for (const h of ['a', 'b', 'c']) local.keep(h, session(), local.mark());
    expect(['a', 'b', 'c'].filter((h) => local.get(h, Date.now()))).toEqual(['b', 'c']);
  });
});
