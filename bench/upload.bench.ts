/**
 * A 200 MB chunked upload through the service as `npm start` runs it (multipartFileInit, then
 * multipartUpload in 5 MiB chunks over HTTP on loopback; the download compared by sha256), against
 * baselines measured in the same run: a plain copy of the same file on the same disk, and a bare
 * Fastify + @fastify/multipart server receiving the same chunk requests into files (the cost of HTTP
 * and multipart parsing on this machine, without the service). Both servers run in processes of their
 * own, so the service's peak RSS (VmHWM) is its alone (target ≤ 128 MB), counted from the first upload
 * (the start's peak is printed beside it). No assertions on time.
 *
 * BENCH_UPLOAD_MB (200), BENCH_CHUNK_MIB (5), BENCH_PARALLEL (3 chunks in flight in the parallel run);
 * DATABASE_URL / REDIS_URL / STORAGE and S3_* choose the service's backends as they do for the service.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { copyFile, open, unlink } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { report } from './report.js';
import { serviceNodeArgs } from './bench-app.js';

const MB = 1_000_000;
const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_UPLOAD_MB ?? 200) * MB;
const CHUNK = Number(process.env.BENCH_CHUNK_MIB ?? 5) * MiB;
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 3);
const repoRoot = path.resolve(import.meta.dirname, '..');

/**
 * The baseline server, run as plain Node (no TypeScript loader) so its RSS is a fair floor: multipart
 * parts streamed into files with their sha256, nothing else.
 */
const BARE_SERVER = `
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';
import multipart from '@fastify/multipart';
const dir = process.env.BARE_DIR;
mkdirSync(dir, { recursive: true });
const app = Fastify({ logger: false });
await app.register(multipart, { limits: { fileSize: 64 * 1024 * 1024 } });
let n = 0;
app.post('/chunk', async (req) => {
  for await (const part of req.parts()) {
    if (part.type !== 'file') continue;
    const hash = createHash('sha256');
    await pipeline(part.file, new Transform({ transform(c, _e, done) { hash.update(c); done(null, c); } }), createWriteStream(path.join(dir, String(n++))));
  }
  return { errcode: 0 };
});
process.stdout.write('bare server ready on ' + (await app.listen({ port: 0, host: '127.0.0.1' })) + '\\n');
`;

/** Starts a process and waits for `... ready on <url>` in its output. */
async function start(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const seen = (d: Buffer) => {
      out += d;
      const m = /ready on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: (kb('VmRSS') * 1024) / MB, peakMb: (kb('VmHWM') * 1024) / MB };
}

/**
 * Starts a new peak (VmHWM) for the process (Linux resets it when 5 is written to clear_refs), so the
 * peak read afterwards is the upload's and not the start's: on PGlite the start peaks near 900 MB
 * in PGlite's own initdb of the fresh data directory, which says nothing about uploads.
 */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

const agent = new http.Agent({ keepAlive: true });

function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'POST', headers: opts.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function json(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const parsed = JSON.parse(res.body.toString());
  if (parsed.errcode !== 0) throw new Error(`${url}: ${parsed.errmsg}`);
  return { ...res, data: parsed.data };
}

function multipartBody(fields: Record<string, string>, bytes: Buffer): { body: Buffer; type: string } {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="blob"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

/** A PDF-headed file of random blocks (a type general uploads accept), written in 1 MiB pieces. */
async function writeSource(file: string): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  for (let at = 0; at < SIZE; at += MiB) {
    const piece = randomBytes(Math.min(MiB, SIZE - at));
    if (at === 0) piece.write('%PDF-1.4\n', 'latin1');
    hash.update(piece);
    if (!out.write(piece)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
  return hash.digest('hex');
}

async function timed<T>(f: () => Promise<T>): Promise<{ seconds: number; out: T }> {
  const started = performance.now();
  const out = await f();
  return { seconds: (performance.now() - started) / 1000, out };
}

/** Sends every chunk of `source` (`parallel` in flight), each built by `post`; answers the last answer that says completed. */
async function sendChunks(
  source: string,
  parallel: number,
  post: (n: number, total: number, bytes: Buffer) => Promise<string | null>,
): Promise<{ fileKey: string | null; completingS: number }> {
  const total = Math.ceil(SIZE / CHUNK);
  const handle = await open(source, 'r');
  let next = 1;
  let done: string | null = null;
  let completingS = 0;
  const worker = async () => {
    while (next <= total) {
      const n = next++;
      const bytes = Buffer.alloc(Math.min(CHUNK, SIZE - (n - 1) * CHUNK));
      await handle.read(bytes, 0, bytes.length, (n - 1) * CHUNK);
      const started = performance.now();
      const key = await post(n, total, bytes);
      if (key) [done, completingS] = [key, (performance.now() - started) / 1000];
    }
  };
  try {
    await Promise.all(Array.from({ length: parallel }, worker));
  } finally {
    await handle.close();
  }
  return { fileKey: done, completingS };
}

/** A staff account the service will accept: the bootstrap admin on an empty database, else one inserted here. */
async function benchAdmin(username: string, password: string): Promise<void> {
  if (!process.env.DATABASE_URL) return;
  const { openDatabase } = await import('../src/platform/db/database.js');
  const { migrateToLatest } = await import('../src/platform/db/migrate.js');
  const { ensureRole, insertStaff } = await import('../src/modules/staff/bootstrap.repository.js');
  const { SUPER_ADMIN_ROLE } = await import('../src/seed/reference.js');
  const { hashPassword } = await import('../src/platform/auth/password.js');
  const database = openDatabase({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: os.tmpdir(),
    tz: process.env.TZ ?? 'Asia/Shanghai',
  });
  await migrateToLatest(database.db);
  const roleId = await ensureRole(database.db, SUPER_ADMIN_ROLE, 'Super administrator', ['*']);
  await insertStaff(
    database.db,
    {
      username,
      passwordHash: await hashPassword(password),
      nickname: username,
      userType: 1,
      merchantId: null,
      shopId: null,
    },
    [roleId],
  );
  await database.close();
}

async function measure(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-upload-'));
  const username = `bench_${randomBytes(4).toString('hex')}`;
  const password = `Bench@${randomBytes(8).toString('hex')}`;
  const bypass = randomBytes(4).toString('hex');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  await benchAdmin(username, password);
  const service = await start(
    [...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof2'] : []), ...serviceNodeArgs()],
    {
      ...process.env,
      DATA_DIR: path.join(dataDir, 'service'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      ADMIN_USERNAME: username,
      ADMIN_PASSWORD: password,
      CAPTCHA_BYPASS_CODE: bypass,
    },
  );
  const bare = await start(['--input-type=module', '-e', BARE_SERVER], {
    ...process.env,
    BARE_DIR: path.join(dataDir, 'bare'),
  });
  try {
    const captcha = await request(`${service.url}/manage-api/auth/getRandomCodeImg`, { method: 'GET' });
    const login = await json(`${service.url}/manage-api/auth/login`, {
      username,
      password,
      code: bypass,
      uuid: String(captcha.headers['x-captcha-key']),
    });
    const auth = { authorization: `Bearer ${login.data.accessToken}` };
    const idle = memoryOf(service.child.pid!);
    const peakReset = resetPeak(service.child.pid!);

    const source = path.join(dataDir, 'source.bin');
    const sourceSha = await writeSource(source);
    const copyTo = path.join(dataDir, 'copy.bin');
    const kernelCopy = await timed(() => copyFile(source, copyTo));
    await unlink(copyTo);
    const streamCopy = await timed(() =>
      pipeline(createReadStream(source, { highWaterMark: MiB }), createWriteStream(copyTo)),
    );
    await unlink(copyTo);

    const bareRun = await timed(() =>
      sendChunks(source, 1, async (n, total, bytes) => {
        const { body, type } = multipartBody(
          { uploadId: 'bare', totalChunks: String(total), chunkNumber: String(n), fileKey: 'bench.pdf' },
          bytes,
        );
        await request(`${bare.url}/chunk`, { headers: { 'content-type': type }, body });
        return null;
      }),
    );

    const upload = (parallel: number) =>
      timed(async () => {
        const init = await json(`${service.url}/manage-api/oss/multipartFileInit`, { fileName: 'bench.pdf' }, auth);
        return sendChunks(source, parallel, async (n, total, bytes) => {
          const { body, type } = multipartBody(
            { uploadId: init.data.uploadId, totalChunks: String(total), chunkNumber: String(n), fileKey: 'bench.pdf' },
            bytes,
          );
          const res = JSON.parse(
            (
              await request(`${service.url}/manage-api/oss/multipartUpload`, {
                headers: { ...auth, 'content-type': type },
                body,
              })
            ).body.toString(),
          );
          if (res.errcode !== 0) throw new Error(`chunk ${n}: ${res.errmsg}`);
          return res.data.completed ? (res.data.fileKey as string) : null;
        });
      });
    const sequential = await upload(1);
    const afterSequential = memoryOf(service.child.pid!);
    const parallel = await upload(PARALLEL);
    const afterParallel = memoryOf(service.child.pid!);

    const download = async (fileKey: string | null) =>
      timed(
        () =>
          new Promise<string>((resolve, reject) => {
            const req = http.request(
              `${service.url}/manage-api/oss/download`,
              { method: 'POST', agent, headers: { ...auth, 'content-type': 'application/json' } },
              (res) => {
                const hash = createHash('sha256');
                res.on('data', (c: Buffer) => hash.update(c));
                res.on('end', () => resolve(hash.digest('hex')));
                res.on('error', reject);
              },
            );
            req.on('error', reject);
            req.end(JSON.stringify({ fileKey }));
          }),
      );
    const down = await download(sequential.out.fileKey);
    const downParallel = await download(parallel.out.fileKey);
    const peak = memoryOf(service.child.pid!);
    if (process.env.BENCH_VERBOSE) console.log({ idle, afterSequential, afterParallel, peak });
    const bareMemory = memoryOf(bare.child.pid!);

    const rate = (s: number) => SIZE / MB / s;
    const row = (name: string, s: number) =>
      console.log(`  ${name.padEnd(52)} ${rate(s).toFixed(0).padStart(6)} MB/s   ${s.toFixed(2)} s`);
    console.log(
      `chunked upload of ${SIZE / MB} MB in ${Math.ceil(SIZE / CHUNK)} chunks of ${CHUNK / MiB} MiB, service as npm start runs it ` +
        `(${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, ${process.env.STORAGE ?? 'local'} storage)`,
    );
    row('plain copy: copyFile', kernelCopy.seconds);
    row('plain copy: read/write streams', streamCopy.seconds);
    row('bare Fastify + multipart into files, one at a time', bareRun.seconds);
    row('service chunked upload, one chunk at a time', sequential.seconds);
    row(`service chunked upload, ${PARALLEL} chunks in flight`, parallel.seconds);
    row('service download', down.seconds);
    console.log(
      `  of which the completing request (join + sha256 of the whole file): ${sequential.out.completingS.toFixed(2)} s sequential, ${parallel.out.completingS.toFixed(2)} s parallel`,
    );
    const ratio = (base: number, s: number) => (base / s).toFixed(2);
    console.log(
      `  ratio upload/stream copy:  ${ratio(streamCopy.seconds, sequential.seconds)} sequential, ${ratio(streamCopy.seconds, parallel.seconds)} parallel`,
    );
    console.log(
      `  ratio upload/bare receive: ${ratio(bareRun.seconds, sequential.seconds)} sequential, ${ratio(bareRun.seconds, parallel.seconds)} parallel`,
    );
    console.log(
      `  downloads equal the source by sha256: ${down.out === sourceSha && downParallel.out === sourceSha ? 'yes' : 'NO'}`,
    );
    report({
      goal: `chunked upload of ${SIZE / MB} MB, service peak RSS`,
      value: peak.peakMb,
      unit: 'MB',
      target: '≤ 128 MB',
      met: peak.peakMb <= 128,
      database: process.env.DATABASE_URL ? 'postgres' : 'pglite',
    });
    console.log(
      `  service RSS: ${idle.rssMb.toFixed(0)} MB idle after start (${idle.peakMb.toFixed(0)} MB peak while starting), ` +
        `peak ${peak.peakMb.toFixed(0)} MB ${peakReset ? 'from the first upload to the last download' : 'since start (the peak could not be reset)'} ` +
        `(target ≤ 128 MB); bare server peak ${bareMemory.peakMb.toFixed(0)} MB`,
    );
    if (down.out !== sourceSha || downParallel.out !== sourceSha) process.exitCode = 1;
  } finally {
    agent.destroy();
    await stop(service.child);
    await stop(bare.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await measure();
