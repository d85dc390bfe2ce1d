import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { drainedOrClosed, firstJsonBody, rawRequest, type RawOutcome } from '../helpers/raw-http.js';
import { buildApp } from '../../src/app.js';
import { unauthorized } from '../../src/platform/errors.js';
import { registerEarlyAnswerLinger } from '../../src/platform/http/early-answer.js';

const PAGE = '/manage-api/region/queryRegionPage';
const MB = 1024 * 1024;
const TOO_LARGE = { errcode: 413, errmsg: 'request body too large' };

let t: TestApp;
let token: string;
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  token = (await t.loginStaff()).accessToken;
  app = await buildApp({ config: t.config, database: t.database, store: t.store, logger: false });
  // An answer given before any of the body is read, as an authentication check ahead of parsing gives it.
  app.addHook('preParsing', async (request) => {
    if (request.headers['x-answer-early']) throw unauthorized();
  });
  port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(async () => {
  await app?.close();
  await t?.close();
});

/** Runs `n` requests one after another and answers how many of them read the expected answer. */
async function answered(
  n: number,
  send: () => Promise<RawOutcome>,
  expected: unknown,
): Promise<{ seen: number; outcomes: RawOutcome[] }> {
  const outcomes: RawOutcome[] = [];
  for (let i = 0; i < n; i++) outcomes.push(await send());
  const seen = outcomes.filter((o) => JSON.stringify(firstJsonBody(o.response)) === JSON.stringify(expected)).length;
  return { seen, outcomes };
}

const headers = (extra: Record<string, string> = {}) => ({
  'Content-Type': 'application/json',
  Authorization: `Bearer ${token}`,
  ...extra,
});

describe('an answer given while the body is still arriving reaches the client', () => {
  it.each([
    { label: '2 MB', bytes: 2 * MB, readAfterSending: false },
    { label: '30 MB', bytes: 30 * MB, readAfterSending: false },
    { label: '2 MB', bytes: 2 * MB, readAfterSending: true },
    { label: '30 MB', bytes: 30 * MB, readAfterSending: true },
    { label: '30 MB (trickled)', bytes: 30 * MB, readAfterSending: true, pauseMs: 1 },
  ])(
    '413 for a $label body with Content-Length, every time (client reads only after sending: $readAfterSending)',
    async ({ bytes, readAfterSending, pauseMs }) => {
      const { seen, outcomes } = await answered(
        5,
        () => rawRequest({ port, path: PAGE, headers: headers(), bodyBytes: bytes, readAfterSending, pauseMs }),
        TOO_LARGE,
      );
      expect(seen, JSON.stringify(outcomes.map((o) => o.error))).toBe(5);
      for (const o of outcomes) expect(o.response).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*connection: close\r\n/i);
    },
  );

  it('413 for a chunked body that outgrows the limit while it is read', async () => {
    const { seen, outcomes } = await answered(
      5,
      () =>
        rawRequest({ port, path: PAGE, headers: headers(), bodyBytes: 8 * MB, chunked: true, readAfterSending: true }),
      TOO_LARGE,
    );
    expect(seen, JSON.stringify(outcomes.map((o) => [o.error, o.sent, o.response.slice(0, 300)]))).toBe(5);
  });

  it('413 also when the client asked to close the connection itself', async () => {
    const { seen } = await answered(
      5,
      () =>
        rawRequest({
          port,
          path: PAGE,
          headers: headers({ Connection: 'close' }),
          bodyBytes: 30 * MB,
          readAfterSending: true,
        }),
      TOO_LARGE,
    );
    expect(seen).toBe(5);
  });

  it.each([
    ['keep-alive', {}],
    ['Connection: close', { Connection: 'close' }],
  ])('an early 401, answered before any of the body was read (%s)', async (_label, extra) => {
    const early = { errcode: 401, errmsg: 'not logged in or the login has expired' };
    const { seen } = await answered(
      4,
      () =>
        rawRequest({
          port,
          path: PAGE,
          headers: headers({ 'X-Answer-Early': '1', ...extra }),
          bodyBytes: 30 * MB,
          readAfterSending: true,
        }),
      early,
    );
    expect(seen).toBe(4);
  });

  it('answers a small request read in full as usual', async () => {
    const res = await rawRequest({ port, path: PAGE, headers: headers({ Connection: 'close' }), bodyBytes: 0 });
    expect(firstJsonBody(res.response)).toMatchObject({ errcode: 0, data: { total: expect.any(Number) } });
  });
});

describe('the draining after an early answer is bounded', () => {
  async function bareApp(limits: { bytes: number; ms: number }) {
    const bare = Fastify({ bodyLimit: 1024 });
    registerEarlyAnswerLinger(bare, limits);
    bare.post('/x', async () => ({ ok: true }));
    const port = Number(new URL(await bare.listen({ port: 0, host: '127.0.0.1' })).port);
    return { bare, port };
  }

  it('cuts a client that keeps sending past the byte budget, after it has read the answer', async () => {
    const { bare, port } = await bareApp({ bytes: 2 * MB, ms: 30_000 });
    try {
      const out = await new Promise<{ response: string; error: string | null; sent: number }>((resolve) => {
        let response = '';
        let sent = 0;
        const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, async () => {
          socket.write(
            `POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${30 * MB}\r\n\r\n`,
          );
          const piece = Buffer.alloc(64 * 1024, 'a');
          // keeps sending, whatever it has read, until the server cuts it
          while (sent < 30 * MB && !socket.destroyed) {
            if (!socket.write(piece)) await drainedOrClosed(socket);
            sent += piece.length;
            await new Promise((r) => setTimeout(r, 2));
          }
        });
        socket.on('data', (d) => (response += d));
        socket.on('error', (e: NodeJS.ErrnoException) => resolve({ response, error: e.code ?? e.message, sent }));
        socket.on('close', () => resolve({ response, error: null, sent }));
      });
      expect(out.response).toMatch(/^HTTP\/1\.1 413 /);
      expect(out.error).toMatch(/^(EPIPE|ECONNRESET)$/);
      expect(out.sent).toBeLessThan(20 * MB);
    } finally {
      await bare.close();
    }
  });

  it('cuts a client that trickles once the time budget is spent, and does not hold up a shutdown', async () => {
    const { bare, port } = await bareApp({ bytes: 64 * MB, ms: 300 });
    const head =
      'POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":"';
    try {
      const cutAfter = await new Promise<number>((resolve) => {
        const started = Date.now();
        const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => socket.write(head));
        // one byte every 20 ms: the body would take half an hour
        const trickle = setInterval(() => socket.write('a'), 20);
        const stop = () => {
          clearInterval(trickle);
          resolve(Date.now() - started);
        };
        socket.on('data', () => {});
        socket.on('error', stop);
        socket.on('close', stop);
      });
      expect(cutAfter).toBeGreaterThanOrEqual(250);
      expect(cutAfter).toBeLessThan(5_000);
    } finally {
      await bare.close();
    }

    // A budget of 10 s, so a close that waited for it would show beside a loaded machine's delays.
    const long = await bareApp({ bytes: 64 * MB, ms: 10_000 });
    try {
      const stalled = connect({ port: long.port, host: '127.0.0.1', allowHalfOpen: true }, () => stalled.write(head));
      stalled.on('error', () => {});
      await new Promise((r) => stalled.once('data', r));
      const started = Date.now();
      await long.bare.close();
      expect(Date.now() - started).toBeLessThan(2_000);
      stalled.destroy();
    } finally {
      await long.bare.close();
    }
  });
});
