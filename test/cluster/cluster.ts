import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { sign, signingString } from '../../src/platform/auth/open-signature.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { openStore, type Store } from '../../src/platform/store/index.js';
import { adminUrl } from '../helpers/global-setup.js';
import { freePort } from '../helpers/free-port.js';
import { startProcess, stopProcess, waitReady, type Started } from '../helpers/processes.js';
import { TEST_ADMIN, TEST_TZ } from '../helpers/test-env.js';
import { testStorePrefix } from '../helpers/store-prefix.js';

/**
 * Real server processes for the cluster and fault tests: `node --import tsx src/main.ts` on loopback,
 * on a PostgreSQL database of the test's own (or a PGlite data directory) and a Redis key prefix of
 * its own, plus what talks to them: an HTTP client that never throws, staff login through the real
 * captcha, signed open-channel calls, and a TCP proxy a test can cut to make a dependency unreachable.
 */

export const PG_URL = process.env.DATABASE_URL || null;
export const REDIS_URL = process.env.REDIS_URL || null;
export const OPEN_APP = { key: 'cluster-open-app', secret: 'cluster-open-secret-0123456789' };

// ---------------------------------------------------------------------------------------------
// Databases

export interface PgDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A PostgreSQL database of the test's own: `empty` (the servers migrate and seed it as they start)
 * or a copy of the run's seeded template. Named so the run's teardown drops it if the test cannot.
 */
export async function createPgDatabase(tag: string, from: 'empty' | 'template'): Promise<PgDatabase> {
  const name = `tc_t_${inject('runId')}_${tag}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL! });
  await admin.connect();
  try {
    await admin.query(
      from === 'template' ? `create database ${name} template ${inject('pgTemplate')}` : `create database ${name}`,
    );
  } finally {
    await admin.end();
  }
  return {
    name,
    url: adminUrl(PG_URL!, name),
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL! });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Server processes

export interface Server {
  base: string;
  port: number;
  proc: Started;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM (graceful drain); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, no drain, no flush: resolves once the process is gone. */
  kill9(): Promise<void>;
}

/** The environment every test server gets; `over` adds or replaces variables (an empty value unsets one). */
export function serverEnv(over: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    TZ: TEST_TZ,
    NODE_ENV: 'development',
    ADMIN_PASSWORD: TEST_ADMIN.password,
    LOG_LEVEL: 'warn',
    ...over,
  };
}

/** Starts one server on a free port and waits until /readyz answers 200 (throws with its output if not). */
export async function startServer(env: Record<string, string>, readyMs = 120_000): Promise<Server> {
  const port = await freePort();
  const proc = startProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: process.cwd(),
    env: { ...env, PORT: String(port) },
    port,
  });
  const server: Server = {
    base: `http://127.0.0.1:${port}`,
    port,
    proc,
    output: proc.output,
    async stop() {
      await stopProcess(proc);
      return proc.exited;
    },
    async kill9() {
      if (proc.child.exitCode === null && proc.child.signalCode === null) {
        try {
          process.kill(-proc.child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await proc.exited;
    },
  };
  if (!(await waitReady(proc, readyMs))) {
    await server.kill9();
    throw new Error(`server on port ${port} did not become ready:\n${proc.output()}`);
  }
  return server;
}

export interface Cluster {
  servers: Server[];
  pg: PgDatabase;
  /** The shared database, for the test's own fixtures and checks. */
  database: Database;
  /** The shared store under the servers' prefix (captcha and SMS codes are read from it, as a person reads them). */
  store: Store;
  /** When each server was started and became ready, in ms since the cluster began. */
  startMs: number;
  close(): Promise<void>;
}

/**
 * `size` servers started at the same moment on one PostgreSQL database and one Redis prefix, the
 * way N instances run behind a load balancer. TRUST_PROXY is on so a test picks its client address
 * with X-Forwarded-For (rate limits and lock-outs are counted per address).
 */
export async function startCluster(
  o: { size?: number; from?: 'empty' | 'template'; env?: Record<string, string> } = {},
): Promise<Cluster> {
  const size = o.size ?? 2;
  const pgDb = await createPgDatabase('cluster', o.from ?? 'template');
  const prefix = testStorePrefix('cluster');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tc-cluster-'));
  const started = Date.now();
  const settled = await Promise.allSettled(
    Array.from({ length: size }, (_, i) =>
      startServer(
        serverEnv({
          DATABASE_URL: pgDb.url,
          REDIS_URL: REDIS_URL!,
          STORE_PREFIX: prefix,
          DATA_DIR: path.join(scratch, `s${i}`),
          TRUST_PROXY: '1',
          OPEN_APP_KEY: OPEN_APP.key,
          OPEN_APP_SECRET: OPEN_APP.secret,
          ...o.env,
        }),
      ),
    ),
  );
  const servers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const cleanup = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await pgDb.drop();
    rmSync(scratch, { recursive: true, force: true });
  };
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    await cleanup();
    throw (failed as PromiseRejectedResult).reason;
  }
  const startMs = Date.now() - started;
  const database = openDatabase({ databaseUrl: pgDb.url, dataDir: scratch, tz: TEST_TZ, poolMax: 4 });
  const store = await openStore(REDIS_URL, prefix);
  return {
    servers,
    pg: pgDb,
    database,
    store,
    startMs,
    async close() {
      await store.close();
      await database.close();
      await cleanup();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Answer {
  status: number;
  body: { errcode: number; errmsg: string; data?: any };
  headers: Headers;
  ms: number;
}

export interface CallOptions {
  token?: string;
  /** the client address the server sees (X-Forwarded-For; the servers trust it) */
  ip?: string;
  method?: string;
  headers?: Record<string, string>;
  /** the raw body to send instead of JSON.stringify(body) */
  raw?: string;
  /** a request that takes longer fails the call with status 0 (a hang) */
  timeoutMs?: number;
}

/**
 * One HTTP call. Never throws: a refused connection answers status -1, a timeout status 0, a body
 * that is not JSON errcode NaN with the text as errmsg.
 */
export async function call(base: string, url: string, body?: unknown, o: CallOptions = {}): Promise<Answer> {
  const t0 = performance.now();
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.ip) headers['x-forwarded-for'] = o.ip;
  const payload = o.raw ?? (body === undefined ? undefined : JSON.stringify(body));
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  try {
    const res = await fetch(base + url, {
      method: o.method ?? (payload === undefined ? 'GET' : 'POST'),
      headers,
      body: payload,
      signal: AbortSignal.timeout(o.timeoutMs ?? 60_000),
    });
    const text = await res.text();
    let parsed: Answer['body'];
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { errcode: Number.NaN, errmsg: text.slice(0, 200) };
    }
    return { status: res.status, body: parsed, headers: res.headers, ms: performance.now() - t0 };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return {
      status: timedOut ? 0 : -1,
      body: { errcode: Number.NaN, errmsg: String((err as Error).cause ?? err) },
      headers: new Headers(),
      ms: performance.now() - t0,
    };
  }
}

let addressSerial = 0;
/** A client address no other call of this process uses (rate limits and lock-outs start from zero). */
export function newClientIp(): string {
  addressSerial += 1;
  const r = randomBytes(2);
  return `10.${r[0]}.${r[1]}.${(addressSerial % 250) + 1}`;
}

/** Fetches a captcha image; answers its session key (null when refused) and the answer. */
export async function fetchCaptcha(base: string, ip = newClientIp()): Promise<{ key: string | null; answer: Answer }> {
  const answer = await call(base, '/manage-api/auth/getRandomCodeImg', undefined, { ip });
  // a refusal is the JSON envelope (HTTP 200 too); only an image carries a key
  const image = answer.status === 200 && answer.headers.get('content-type') === 'image/png';
  return { key: image ? answer.headers.get('x-captcha-key') : null, answer };
}

/**
 * Staff login as a person does it: the captcha image from `captchaFrom`, its code read (from the
 * shared store, where the picture's digits are kept), the login posted to `loginAt`.
 */
export async function staffLogin(
  store: Store,
  o: { captchaFrom: string; loginAt: string; ip?: string; username?: string; password?: string },
): Promise<Answer> {
  const { key } = await fetchCaptcha(o.captchaFrom);
  if (!key) throw new Error('captcha refused');
  const code = await store.get(`captcha:${key}`);
  return call(
    o.loginAt,
    '/manage-api/auth/login',
    {
      username: o.username ?? TEST_ADMIN.username,
      password: o.password ?? TEST_ADMIN.password,
      code,
      uuid: key,
    },
    { ip: o.ip ?? newClientIp() },
  );
}

/** An admin access token (throws unless the login succeeds). */
export async function adminToken(store: Store, base: string): Promise<string> {
  const res = await staffLogin(store, { captchaFrom: base, loginAt: base });
  if (res.body.errcode !== 0) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return res.body.data.accessToken as string;
}

/** Staff login on a server started with CAPTCHA_BYPASS_CODE (an embedded store the test cannot read). */
export async function bypassLogin(base: string, bypassCode: string): Promise<string> {
  const { key } = await fetchCaptcha(base);
  if (!key) throw new Error('captcha refused');
  const res = await call(base, '/manage-api/auth/login', {
    username: TEST_ADMIN.username,
    password: TEST_ADMIN.password,
    code: bypassCode,
    uuid: key,
  });
  if (res.body.errcode !== 0) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return res.body.data.accessToken as string;
}

/** The code the service texted for a purpose (the log provider keeps it in the shared store). */
export async function smsCode(store: Store, purpose: string, phone: string): Promise<string> {
  const raw = await store.get(`sms:code:${purpose}:${phone}`);
  if (!raw) throw new Error(`no ${purpose} code for ${phone}`);
  return (JSON.parse(raw) as { code: string }).code;
}

/** The headers of a signed open-channel call (docs/architecture.md §5.5); the same headers replay the call. */
export function openSignature(
  urlPath: string,
  body: string,
  nonce = randomBytes(12).toString('hex'),
): Record<string, string> {
  const ts = String(Date.now());
  return {
    'x-app-key': OPEN_APP.key,
    'x-timestamp': ts,
    'x-nonce': nonce,
    'x-sign': sign(OPEN_APP.secret, signingString('POST', urlPath, ts, nonce, body)),
  };
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

// ---------------------------------------------------------------------------------------------
// Faults

/**
 * A TCP proxy in front of PostgreSQL or Redis, with two faults a test can switch on:
 * - `cut()` resets every open connection and every new one until `restore()`: to the server behind
 *   it the dependency is down (as when it restarts or the network between them fails), while the
 *   real service keeps running for everyone else;
 * - `blackhole()` answers nothing and refuses nothing: new connections are accepted and then never
 *   hear back, open ones stop forwarding in both directions (what is sent is read and dropped). The
 *   connections it silenced stay silent after `restore()`, as those of a server that hung and was
 *   restarted without their resets reaching the client: only new connections work again, so a
 *   client that keeps a silenced connection never recovers, and one that closes it waits for an
 *   answer to its FIN that never comes.
 */
export class TcpProxy {
  private mode: 'up' | 'cut' | 'blackhole' = 'up';
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  /** sockets the blackhole silenced (opened during it, or open when it began), until they close */
  private readonly silenced = new Set<net.Socket>();
  /** connections accepted while up, refused while cut, and accepted into the blackhole */
  accepted = 0;
  refused = 0;
  swallowed = 0;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy!: TcpProxy; // eslint-disable-line prefer-const -- assigned by the closure below
    const server = net.createServer((client) => {
      client.on('error', () => {});
      if (proxy.mode === 'cut') {
        proxy.refused += 1;
        client.resetAndDestroy();
        return;
      }
      if (proxy.mode === 'blackhole') {
        proxy.swallowed += 1;
        proxy.silence(client);
        return;
      }
      proxy.accepted += 1;
      const upstream = net.connect(target.port, target.host);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      const pair: [net.Socket, net.Socket] = [client, upstream];
      proxy.pairs.add(pair);
      const end = () => {
        proxy.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    return proxy;
  }

  get open(): number {
    return this.pairs.size;
  }

  /** Reads and drops whatever arrives on `socket` from now on, and sends nothing back. */
  private silence(socket: net.Socket): void {
    // A host gone silent does not answer a goodbye either: the client's FIN gets no FIN back (by
    // default Node would end this side at once, and the client's close would complete).
    socket.allowHalfOpen = true;
    socket.unpipe();
    socket.on('data', () => {});
    socket.resume();
    this.silenced.add(socket);
    socket.once('close', () => this.silenced.delete(socket));
  }

  cut(): void {
    this.mode = 'cut';
    for (const [client, upstream] of this.pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.pairs.clear();
    for (const socket of this.silenced) socket.resetAndDestroy();
    this.silenced.clear();
  }

  blackhole(): void {
    this.mode = 'blackhole';
    // Each side is unpiped from the other and drained into nothing; the pair stays open until the
    // client (or the server) closes it, and is no longer counted as open.
    for (const pair of this.pairs) {
      for (const socket of pair) this.silence(socket);
    }
    this.pairs.clear();
  }

  restore(): void {
    this.mode = 'up';
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** host and port of a postgres:// or redis:// URL */
export function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port || defaultPort) };
}

/** The same URL pointed at another port on 127.0.0.1 (the proxy). */
export function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}
