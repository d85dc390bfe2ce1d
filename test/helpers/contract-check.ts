import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openApiDocument } from '../../src/platform/openapi/register.js';

/**
 * Every answer a test receives from an app it built is checked against that app's own published
 * OpenAPI document: the status is one the operation declares, the media type one it declares for that
 * status, the headers it marks required are there, and a JSON answer validates against its schema
 * (so an errcode the operation does not list, a field of the wrong type, or `data` on a refusal fails
 * the test that caused it: test/helpers/contract-setup.ts). Paths outside the document (/healthz,
 * /metrics, /docs) are not checked.
 */
type Json = Record<string, any>;

const checkers = new Map<string, Checker>();

/** Problems found since the last look, each naming the request; contract-setup.ts reads and clears them. */
export const contractViolations: string[] = [];

class Checker {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    this.ajv.addSchema(doc, 'openapi');
  }

  operation(method: string, path: string): Json | undefined {
    return this.doc.paths?.[path]?.[method.toLowerCase()];
  }

  validator(pointer: string): ValidateFunction {
    let v = this.compiled.get(pointer);
    if (!v) {
      v = this.ajv.getSchema(`openapi#${pointer}`);
      if (!v) throw new Error(`no schema at ${pointer}`);
      this.compiled.set(pointer, v);
    }
    return v;
  }
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function checkerFor(app: FastifyInstance): Checker {
  const doc = openApiDocument(app) as Json;
  const key = createHash('sha1').update(JSON.stringify(doc)).digest('hex');
  let checker = checkers.get(key);
  if (!checker) {
    checker = new Checker(doc);
    checkers.set(key, checker);
  }
  return checker;
}

function mediaTypeOf(header: unknown): string {
  return String(header ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}

function bodyText(payload: unknown, encoding: unknown): string | null {
  let bytes: Buffer | null = null;
  if (typeof payload === 'string') return encoding ? null : payload;
  if (Buffer.isBuffer(payload)) bytes = payload;
  if (!bytes) return null;
  if (encoding === 'br') bytes = brotliDecompressSync(bytes);
  else if (encoding === 'gzip') bytes = gunzipSync(bytes);
  else if (encoding) return null;
  return bytes.toString('utf8');
}

/** The problems of one answer against the document (none for paths the document does not hold). */
function problemsOf(
  checker: Checker,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  sawPayload: boolean,
): string[] {
  const path = request.routeOptions.url;
  if (!path || request.method === 'HEAD' || request.method === 'OPTIONS') return [];
  const operation = checker.operation(request.method, path);
  if (!operation) return [];
  const status = String(reply.statusCode);
  const declared = operation.responses?.[status];
  if (!declared)
    return [
      `HTTP ${status} is not among the statuses the operation declares (${Object.keys(operation.responses ?? {}).join(', ')})`,
    ];
  const problems: string[] = [];
  const type = mediaTypeOf(reply.getHeader('content-type'));
  for (const [name, header] of Object.entries<Json>(declared.headers ?? {})) {
    const expected = header.required || (header['x-sent-with-file'] && type !== 'application/json');
    if (expected && reply.getHeader(name) === undefined)
      problems.push(`the header ${name}, sent with every ${type || 'answer'}, is missing`);
  }
  if (!declared.content) return problems;
  const content = declared.content as Json;
  const mediaType = content[type] ? type : content['*/*'] ? '*/*' : null;
  if (!mediaType) {
    problems.push(
      `media type ${type || '(none)'} is not among those declared for HTTP ${status} (${Object.keys(content).join(', ')})`,
    );
    return problems;
  }
  if (mediaType !== 'application/json' || !sawPayload) return problems;
  const text = bodyText(payload, reply.getHeader('content-encoding'));
  if (text === null) return problems;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, 'the JSON answer does not parse'];
  }
  // A success is checked against the success branch, a refusal against the refusal branch, so the
  // message names what is wrong with the answer rather than why it matches neither.
  const errcode = (body as { errcode?: unknown })?.errcode;
  const schema = (content[mediaType] as Json).schema as Json;
  const branch = Array.isArray(schema.oneOf) && schema.oneOf.length === 2 ? `/oneOf/${errcode === 0 ? 0 : 1}` : '';
  const pointer = `/paths/${escape(path)}/${request.method.toLowerCase()}/responses/${status}/content/${escape(mediaType)}/schema${branch}`;
  const validate = checker.validator(pointer);
  let valid: boolean;
  try {
    valid = validate(body) as boolean;
  } catch (err) {
    // ajv validates a recursive schema by recursion: a tree thousands of levels deep (region-depth
    // tests) overflows its stack. The envelope of such an answer is still checked below.
    if (!(err instanceof RangeError)) throw err;
    return problems.concat(shallowEnvelopeProblems(body));
  }
  if (!valid) {
    const detail = (validate.errors ?? [])
      .slice(0, 6)
      .map(
        (e) =>
          `${e.instancePath || '/'} ${e.message}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues).slice(0, 80)}` : ''}`,
      );
    problems.push(
      `the answer (errcode ${JSON.stringify(errcode)}) does not match its schema: ${detail.join('; ')}; body ${text.slice(0, 300)}`,
    );
  }
  return problems;
}

/** What can be said of an answer too deep to validate whole: it is a success envelope with data. */
function shallowEnvelopeProblems(body: unknown): string[] {
  const b = body as { errcode?: unknown; errmsg?: unknown; data?: unknown };
  if (b?.errcode === 0 && typeof b.errmsg === 'string' && b.data !== undefined) return [];
  return [`a deeply nested answer is not a success envelope: ${JSON.stringify(body).slice(0, 200)}`];
}

/** Checks every answer of `app` (call before `app.ready()`). */
export function attachContractCheck(app: FastifyInstance): void {
  let checker: Checker | null = null;
  const seen = new WeakSet<FastifyRequest>();
  // The check never changes an answer: a failure of its own is reported as a violation, not thrown.
  const record = (request: FastifyRequest, problems: () => string[]) => {
    let found: string[];
    try {
      found = problems();
    } catch (err) {
      found = [`the contract check itself failed: ${String(err)}`];
    }
    for (const p of found) contractViolations.push(`${request.method} ${request.url.split('?')[0]}: ${p}`);
  };
  app.addHook('onReady', async () => {
    checker = checkerFor(app);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (checker) {
      seen.add(request);
      record(request, () => problemsOf(checker!, request, reply, payload, true));
    }
    return payload;
  });
  // Hijacked answers (streamed exports) skip onSend: their status, headers and media type are checked here.
  app.addHook('onResponse', async (request, reply) => {
    if (checker && !seen.has(request)) record(request, () => problemsOf(checker!, request, reply, undefined, false));
  });
}
