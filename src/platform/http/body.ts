import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../errors.js';
import { markTextFields } from './input-guard.js';

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
 * `{"body": {...}}` is unwrapped for the clients that wrap their payload (docs/architecture.md §5.2).
 * Form bodies (application/x-www-form-urlencoded, which Spring binds to request parameters) become
 * the same object: a repeated key a list, an empty body `{}`; their fields are text, read by the
 * query-string rules (input-guard.ts). Both share the route's body limit and its validation.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.decorateRequest('rawBody', '');
  app.decorateRequest('bodySha256', null);
  // JSON and form bodies only (multipart is added by the upload routes); anything else is refused as 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (req: FastifyRequest, text: string | Buffer, done) => {
      const crossSite = crossSiteForm(req);
      if (crossSite) return done(crossSite, undefined);
      const raw = typeof text === 'string' ? text : text.toString('utf8');
      req.rawBody = raw;
      done(null, parseForm(raw));
    },
  );
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (req: FastifyRequest, text: string | Buffer, done) => {
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
    },
  );
}

/**
 * Forms (url-encoded or multipart) are the bodies a browser posts to another site without asking it
 * first (CORS): one sent from another site's page is refused, so no page can make its visitors'
 * browsers call us. Apps, mini programs and servers send no Sec-Fetch-Site; a JSON post needs a
 * preflight we never grant.
 */
export function crossSiteForm(req: FastifyRequest): AppError | null {
  return req.headers['sec-fetch-site'] === 'cross-site'
    ? new AppError(ErrorCode.FORBIDDEN, 'a form posted from another site is refused')
    : null;
}

function unwrap(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const inner = (value as Record<string, unknown>).body;
    if (keys.length === 1 && keys[0] === 'body' && inner && typeof inner === 'object' && !Array.isArray(inner))
      return inner;
  }
  return value;
}

/** A form body as an object of its fields (own properties even for `__proto__`, which the input guard refuses). */
function parseForm(raw: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const had = Object.hasOwn(out, key) ? out[key] : undefined;
    if (Array.isArray(had)) had.push(value);
    else
      Object.defineProperty(out, key, {
        value: had === undefined ? value : [had, value],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  markTextFields(out, 'all');
  return out;
}
