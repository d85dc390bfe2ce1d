import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received: open-channel signatures are computed over it. */
    rawBody: string;
    /** Set where the body is not kept as text (multipart uploads): the hex SHA-256 of its raw bytes. */
    bodySha256: string | null;
  }
}

/**
 * JSON bodies: an empty body is an empty object (Java clients post nothing to void operations), and
 * `{"body": {...}}` is unwrapped for the clients that wrap their payload (DESIGN.md §5.2).
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.decorateRequest('rawBody', '');
  app.decorateRequest('bodySha256', null);
  // Only JSON is spoken (multipart is added by the upload routes); anything else is refused as 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req: FastifyRequest, text: string | Buffer, done) => {
    const raw = typeof text === 'string' ? text : text.toString('utf8');
    req.rawBody = raw;
    if (raw.trim() === '') return done(null, {});
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return done(new AppError(ErrorCode.BAD_REQUEST, 'malformed JSON body'), undefined);
    }
    done(null, unwrap(parsed));
  });
}

function unwrap(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const inner = (value as Record<string, unknown>).body;
    if (keys.length === 1 && keys[0] === 'body' && inner && typeof inner === 'object' && !Array.isArray(inner)) return inner;
  }
  return value;
}
