/** JSON calls of the service over keep-alive HTTP for benches; each answers the envelope. */
import http from 'node:http';

export type JsonCall = (
  base: string,
  method: 'GET' | 'POST',
  pathAndQuery: string,
  token: string | null,
  body?: unknown,
) => Promise<{ errcode: number; data?: any }>;

/** Calls over `agent`'s sockets (its maxSockets bounds the calls in flight). */
export function jsonCall(agent: http.Agent): JsonCall {
  return (base, method, pathAndQuery, token, body) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const u = new URL(base);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: u.hostname,
          port: u.port,
          method,
          path: pathAndQuery,
          headers: {
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch (err) {
              reject(err);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  };
}
