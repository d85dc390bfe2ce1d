import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_SECRET_ID = 'AKIDfakeTestSecretId0000';
export const FAKE_SECRET_KEY = 'fakeTestSecretKey0000000000000000';

export interface TencentCall {
  action: string;
  version: string;
  region: string | undefined;
  /** the service named in the signature's credential scope */
  service: string;
  body: Record<string, any>;
  authorization: string;
}

/** What a handler answers: the `Response` object's content, an error, or something that is not the API. */
export type TencentAnswer =
  | { ok: Record<string, unknown> }
  | { error: { Code: string; Message: string } }
  | { raw: { status: number; body: string } }
  | { hang: true };

const AUTHORIZATION =
  /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([a-z0-9-]+)\/tc3_request, SignedHeaders=content-type;host, Signature=([0-9a-f]{64})$/;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s).digest();

/**
 * A stand-in for a Tencent Cloud API endpoint: checks the TC3-HMAC-SHA256 signature the way the real
 * gateway does (against FAKE_SECRET_KEY) and answers in the API's JSON shape, HTTP 200 even for errors.
 */
export function fakeTencentApi(handle: (call: TencentCall) => TencentAnswer) {
  const calls: TencentCall[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const requestId = randomUUID();
      const reply = (response: Record<string, unknown>) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ Response: { ...response, RequestId: requestId } }));
      const fail = (Code: string, Message: string) => reply({ Error: { Code, Message } });

      if (req.method !== 'POST' || req.url !== '/') return fail('InvalidParameter', 'only POST / is served');
      const header = (name: string) => req.headers[name.toLowerCase()] as string | undefined;
      const authorization = header('authorization') ?? '';
      const m = AUTHORIZATION.exec(authorization);
      if (!m) return fail('AuthFailure.InvalidAuthorization', 'Authorization header is missing or malformed');
      const [, secretId, date, service, signature] = m;
      if (secretId !== FAKE_SECRET_ID) return fail('AuthFailure.SecretIdNotFound', 'The SecretId is not found');
      const timestamp = Number(header('x-tc-timestamp'));
      if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300)
        return fail('AuthFailure.SignatureExpire', 'signature expired');
      if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date)
        return fail('AuthFailure.SignatureFailure', 'credential date mismatch');
      const host = (header('host') ?? '').replace(/:\d+$/, '');
      const canonical = [
        'POST',
        '/',
        '',
        `content-type:${header('content-type')}\nhost:${host}\n`,
        'content-type;host',
        sha256(raw),
      ].join('\n');
      const toSign = ['TC3-HMAC-SHA256', String(timestamp), `${date}/${service}/tc3_request`, sha256(canonical)].join(
        '\n',
      );
      const key = hmac(hmac(hmac('TC3' + FAKE_SECRET_KEY, date), service), 'tc3_request');
      if (createHmac('sha256', key).update(toSign).digest('hex') !== signature)
        return fail('AuthFailure.SignatureFailure', 'The provided credentials could not be validated');

      let body: Record<string, any>;
      try {
        body = JSON.parse(raw);
      } catch {
        return fail('InvalidParameter', 'body is not JSON');
      }
      const call: TencentCall = {
        action: header('x-tc-action') ?? '',
        version: header('x-tc-version') ?? '',
        region: header('x-tc-region'),
        service,
        body,
        authorization,
      };
      calls.push(call);
      const answer = handle(call);
      if ('hang' in answer) return;
      if ('raw' in answer) return void res.writeHead(answer.raw.status).end(answer.raw.body);
      if ('error' in answer) return fail(answer.error.Code, answer.error.Message);
      reply(answer.ok);
    });
  });
  return {
    calls,
    async start(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** An origin where nothing listens: connections are refused. */
export async function closedOrigin(): Promise<string> {
  const api = fakeTencentApi(() => ({ ok: {} }));
  const origin = await api.start();
  await api.stop();
  return origin;
}
