import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '1500' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as net.AddressInfo).port;
});
afterAll(() => t?.close());

/** Opens a socket, writes `text`, then stays silent; answers what came back and after how long it closed. */
function stall(text: string): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept a silent client for 15 s'));
    }, 15_000);
  });
}

describe('slow clients', () => {
  it('a client that never finishes its headers is answered 408 and cut off after the header timeout', async () => {
    const r = await stall('POST /manage-api/region/getRegion HTTP/1.1\r\nHost: x\r\nContent-Type: appl');
    expect(r.answer).toMatch(/^HTTP\/1\.1 408/);
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(r.closedAfterMs).toBeLessThan(5_000);
  });

  it('a client that stops sending its body is cut off after the request timeout', async () => {
    // a login reads its body before anything else (an operation needing a token refuses at once)
    const r = await stall(
      'POST /manage-api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"username":',
    );
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(1_400);
    expect(r.closedAfterMs).toBeLessThan(5_000);
    expect(r.answer === '' || /^HTTP\/1\.1 408/.test(r.answer)).toBe(true);
  });
});

describe('security headers', () => {
  it('are on every answer: success, refusal, unknown path', async () => {
    const answers = [
      await t.app.inject({ method: 'GET', url: '/healthz' }),
      await t.app.inject({ method: 'POST', url: '/manage-api/region/getRegion', payload: { id: 1 } }),
      await t.app.inject({ method: 'GET', url: '/no/such/path' }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 404]);
    expect(answers[1].json().errcode).toBe(401);
    for (const a of answers) {
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['x-frame-options']).toBe('DENY');
      expect(a.headers['referrer-policy']).toBe('no-referrer');
    }
  });
});
