import { Redis } from 'ioredis';
import type { Store } from './store.js';

// One round trip, and the expiry is set only when the window opens.
const INCR_WITH_TTL = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;

// Compare and delete in one step: a GET then DEL could delete a value set in between.
const DEL_IF_VALUE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** How long one command may wait for its reply, reconnections included, before it fails. */
const COMMAND_TIMEOUT_MS = 5_000;

export interface RedisStoreTimings {
  /** a command's bound, and how long a connection may stay silent while it owes a reply */
  silenceMs: number;
  /** how often the subscriber asks for a PING, so that its silence can be noticed at all */
  heartbeatMs: number;
}
const TIMINGS: RedisStoreTimings = { silenceMs: COMMAND_TIMEOUT_MS, heartbeatMs: COMMAND_TIMEOUT_MS };
/**
 * The longest wait between two reconnection attempts. ioredis waits 50 ms more after each failed
 * attempt, up to 2 s by default, so after an outage of a few seconds the service kept answering 503
 * for up to 2 s once Redis was back (measured 2.0–2.3 s by the fault test). An attempt is one TCP
 * connect, cheap for both sides, so a shorter cap costs little while Redis is away.
 */
const MAX_RECONNECT_DELAY_MS = 250;
const reconnectDelay = (attempt: number) => Math.min(attempt * 50, MAX_RECONNECT_DELAY_MS);

/** The shared store on Redis. Keys and channels carry the deployment prefix. */
export async function createRedisStore(
  url: string,
  prefix: string,
  timings: RedisStoreTimings = TIMINGS,
): Promise<Store> {
  const options = {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: true,
    retryStrategy: reconnectDelay,
  };
  // Requests must not wait for Redis to come back (measured with the connection cut: commands queued
  // while it was away, or written just before it broke, waited for a reconnection that never came).
  // While disconnected a command fails at once, one without a reply fails after the timeout, and
  // either answers 503; what was answered 503 is not sent later behind the client's back.
  //
  // Commands issued in one turn of the event loop (the session reads of every request that arrived
  // together) go out in one write and their replies come back in one read: on a busy instance each
  // socket write to Redis had cost more CPU than the rest of a cached read (profiled), and replies
  // and ordering are unchanged. Each command keeps its own timeout.
  //
  // A Redis that stops answering without closing the connection (a hung server, packets dropped):
  // commandTimeout fails each command, but alone it leaves the client on that silent connection, so
  // every later command waited its 5 s too, and for good if the connection never answers again.
  // socketTimeout drops a connection that gives no byte back for as long while replies are owed, and
  // the client reconnects (an attempt to a silent server is refused at once: not ready yet).
  const client = new Redis(url, {
    ...options,
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    commandTimeout: timings.silenceMs,
    socketTimeout: timings.silenceMs,
    autoResendUnfulfilledCommands: false,
  });
  // The subscriber only listens, so it owes no reply that would let socketTimeout notice a silent
  // connection: the cache invalidations of other instances would be lost until TCP keepalive gave up
  // (~11 min). A PING now and then is owed a reply; a silent connection is dropped, the subscriber
  // reconnects and resubscribes, and 'ready' tells the caches to forget what they may have missed.
  const subscriber = new Redis(url, { ...options, maxRetriesPerRequest: null, socketTimeout: timings.silenceMs });
  // Errors surface on the commands that fail; the connection events would otherwise crash the process.
  client.on('error', () => {});
  subscriber.on('error', () => {});
  await client.connect();
  await subscriber.connect();

  const handlers = new Map<string, Set<(message: string) => void>>();
  const reconnectHandlers: Array<() => void> = [];
  const disconnectHandlers: Array<() => void> = [];
  // Registered after the first connect, so every later 'ready' is a reconnection. ioredis emits it
  // before it resubscribes; a SUBSCRIBE of our own, answered after those, says the subscriptions are
  // in place again, so a message published before it is known to be missed rather than perhaps missed.
  subscriber.on('ready', () => {
    const channels = [...handlers.keys()];
    (channels.length > 0 ? subscriber.subscribe(...channels) : Promise.resolve()).then(
      () => {
        for (const h of reconnectHandlers) h();
      },
      // lost again before it was answered: the next 'ready' tries again
      () => {},
    );
  });
  subscriber.on('close', () => {
    for (const h of disconnectHandlers) h();
  });
  subscriber.on('message', (channel: string, message: string) => {
    for (const h of handlers.get(channel) ?? []) h(message);
  });
  const heartbeat = setInterval(() => {
    if (subscriber.status === 'ready') subscriber.ping().catch(() => {});
  }, timings.heartbeatMs);
  heartbeat.unref();

  const k = (key: string) => prefix + key;
  const secs = (ttl: number) => Math.max(1, Math.ceil(ttl));
  return {
    kind: 'redis',
    get: (key) => client.get(k(key)),
    async set(key, value, ttl) {
      await client.set(k(key), value, 'EX', secs(ttl));
    },
    async setIfAbsent(key, value, ttl) {
      return (await client.set(k(key), value, 'EX', secs(ttl), 'NX')) === 'OK';
    },
    take: (key) => client.getdel(k(key)),
    async del(key) {
      await client.del(k(key));
    },
    async delIfValue(key, value) {
      return Number(await client.eval(DEL_IF_VALUE, 1, k(key), value)) === 1;
    },
    async incr(key, ttl) {
      return Number(await client.eval(INCR_WITH_TTL, 1, k(key), secs(ttl)));
    },
    async publish(channel, message) {
      await client.publish(k(channel), message);
    },
    async subscribe(channel, handler) {
      const full = k(channel);
      let set = handlers.get(full);
      if (!set) {
        set = new Set();
        handlers.set(full, set);
        await subscriber.subscribe(full);
      }
      set.add(handler);
    },
    onReconnect(handler) {
      reconnectHandlers.push(handler);
    },
    onDisconnect(handler) {
      disconnectHandlers.push(handler);
    },
    async ping() {
      await client.ping();
    },
    async close() {
      clearInterval(heartbeat);
      handlers.clear();
      // The subscriber owes nothing to flush, and a QUIT on a connection gone silent would wait for
      // a reply that never comes.
      subscriber.disconnect();
      await Promise.allSettled([client.quit()]);
    },
  };
}
