import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { startProcess, stopProcess, waitReady, type Started } from '../helpers/processes.js';

// A checkout of its own (sources, scripts, manifests; node_modules linked), so dist/ starts empty
// and the builds made here touch nothing the rest of the suite uses.
let checkout = '';
const running: Started[] = [];
const ADMIN_PASSWORD = 'Admin@NpmStart1';
const BYPASS = '0000';

/** `npm start` in the checkout, on a data directory and port of its own, with the embedded defaults. */
async function npmStart(name: string): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: path.join(checkout, `data-${name}`),
    DATABASE_URL: '',
    REDIS_URL: '',
    ADMIN_PASSWORD,
    CAPTCHA_BYPASS_CODE: BYPASS,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
  };
  delete env.npm_lifecycle_event;
  const p = startProcess('npm', ['start', '--silent'], { cwd: checkout, env, port });
  running.push(p);
  return p;
}

/** Logs in through the captcha (bypass code) and asks for the area tree: errcode and province count. */
async function areaTree(p: Started): Promise<{ errcode: number; provinces: number }> {
  const base = `http://127.0.0.1:${p.port}/manage-api`;
  const img = await fetch(`${base}/auth/getRandomCodeImg`);
  const uuid = img.headers.get('x-captcha-key');
  const login = await (
    await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD, code: BYPASS, uuid }),
    })
  ).json();
  const tree = await (
    await fetch(`${base}/system/area/tree`, {
      method: 'POST',
      headers: { authorization: `Bearer ${login.data.accessToken}` },
    })
  ).json();
  return { errcode: tree.errcode, provinces: Array.isArray(tree.data) ? tree.data.length : 0 };
}

const builds = () =>
  readdirSync(path.join(checkout, 'dist', 'builds'))
    .filter((n) => !n.startsWith('.'))
    .sort();
const filesOf = (build: string) =>
  readdirSync(path.join(checkout, 'dist', 'builds', build), { recursive: true })
    .map(String)
    .sort();

// The embedded defaults are forced (DATABASE_URL and REDIS_URL empty), so the suite run on PostgreSQL
// would run the very same processes again: it runs in the suite on the embedded defaults only.
describe.skipIf(process.env.DATABASE_URL)('npm start from one checkout', () => {
  beforeAll(() => {
    checkout = mkdtempSync(path.join(tmpdir(), 'npm-start-'));
    for (const entry of ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json']) {
      cpSync(path.resolve(entry), path.join(checkout, entry), { recursive: true });
    }
    symlinkSync(path.resolve('node_modules'), path.join(checkout, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    await Promise.all(running.map(stopProcess));
    if (checkout) rmSync(checkout, { recursive: true, force: true });
  });

  let first: Started[];
  let oldBuild: string;
  let oldFiles: string[];

  it('brings up two instances started at the same moment on an empty dist/', async () => {
    first = await Promise.all([npmStart('a'), npmStart('b')]);
    const ready = await Promise.all(first.map((p) => waitReady(p, 240_000)));
    expect(ready, first.map((p) => p.output()).join('\n----\n')).toEqual([true, true]);
    for (const p of first) expect(await areaTree(p)).toEqual({ errcode: 0, provinces: 34 });
    // The embedded database was made in a child process and renamed into place: no staging left
    // (pglite.lock is the running instance's hold on it).
    for (const name of ['a', 'b'])
      expect(
        readdirSync(path.join(checkout, `data-${name}`))
          .filter((n) => n.startsWith('pglite'))
          .sort(),
      ).toEqual(['pglite', 'pglite.lock']);
    expect(builds()).toHaveLength(1);
    [oldBuild] = builds();
    oldFiles = filesOf(oldBuild);
    expect(oldFiles).toContain('main.mjs');
    expect(oldFiles.some((f) => f.startsWith('chunks/'))).toBe(true);
  }, 300_000);

  it('rebuilds changed sources for a third instance without touching the build the first two run', async () => {
    appendFileSync(
      path.join(checkout, 'src', 'platform', 'health.ts'),
      '\n// changed after the first instances started\n',
    );
    const third = await npmStart('c');
    expect(await waitReady(third, 240_000), third.output()).toBe(true);
    expect(builds()).toHaveLength(2);
    expect(readFileSync(path.join(checkout, 'dist', 'main.mjs'), 'utf8')).not.toContain(oldBuild);
    // every file the first instances may still load lazily is where it was
    expect(filesOf(oldBuild)).toEqual(oldFiles);
    for (const p of [...first, third]) expect(await areaTree(p)).toEqual({ errcode: 0, provinces: 34 });
    for (const p of first) expect(p.child.exitCode).toBeNull();
  }, 300_000);
});
