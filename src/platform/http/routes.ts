import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { Static, TSchema } from 'typebox';
import type { Db } from '../db/database.js';
import { recordOperation } from '../oplog/oplog.js';
import { XlsxExport } from '../export/xlsx-export.js';
import { EventStream } from './event-stream.js';
import { discardUploads, receiveMultipart, type UploadedFile, type UploadLimits } from '../upload/receive.js';
import { CHANNEL_PREFIX, type AccountKind, type Channel, type RequestContext } from './context.js';
import {
  chooseEncoding,
  COMPRESS_MIN_BYTES,
  contentDisposition,
  FileResponse,
  matchesEtag,
  RawJson,
} from './responses.js';
import { Envelope, VoidEnvelope } from './schemas.js';
import type { Authenticator } from './authenticate.js';
import type { ErrcodeGroup } from '../errors.js';
import { markTextFields } from './input-guard.js';
import { newReadContext, runInReadContext, type RouteReads, type SessionWrites } from '../db/read-context.js';
import { routeReads } from './route-reads.js';

/**
 * Who may call a route: nobody in particular (`public`), a signed open app or staff token (`open`),
 * or a session of one of the listed account kinds bound to the route's channel.
 */
export type AuthRule = 'public' | 'open' | { kinds: AccountKind[] };

type In<S> = S extends TSchema ? Static<S> : undefined;

/** Raw-byte answers: an image or download held in memory or streamed, a streamed xlsx export, or server-sent events. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an export of any row type is an answer
export type FileAnswer = FileResponse | XlsxExport<any> | EventStream;

/**
 * What a handler must resolve to for its declared response: the schema's static type (or the same
 * data pre-serialised), nothing for void operations, a file for 'file'. A service returning another
 * shape fails `npm run typecheck`.
 */
export type HandlerOutput<R> = R extends TSchema ? Static<R> | RawJson : R extends 'file' ? FileAnswer : void;

export interface HttpHandles {
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface HandlerInput<B, Q> {
  body: In<B>;
  query: In<Q>;
  /** upload routes: the file parts, received into temporary files */
  files: UploadedFile[];
}

export interface RouteSpec<
  B extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  R extends TSchema | null | 'file' = TSchema | null | 'file',
> {
  method: 'GET' | 'POST' | 'ANY';
  path: string;
  channels: Channel[];
  auth: AuthRule;
  /**
   * Required of staff accounts (docs/architecture.md §5.6), on the manage channel and on the open channel alike.
   * Every route open to staff must say which, or `false` for the few every logged-in staff member may
   * call (logout); registration refuses a route that forgets.
   */
  permission?: string | false;
  /** operation-log labels: [module, action] */
  operation?: [string, string];
  summary: string;
  /** More for the OpenAPI document where the summary is not enough (a rule, a default, a choice). */
  description?: string;
  tags: string[];
  /**
   * Module codes the route can answer besides the common codes its declaration implies and its
   * module's (`defineModule({ errcodes })`); the OpenAPI document lists them all (platform/openapi).
   */
  errcodes?: Array<ErrcodeGroup | number>;
  body?: B;
  query?: Q;
  /** the `data` schema; null for void operations; 'file' for raw bytes */
  response: R;
  /** With `response: 'file'`: what the bytes are, for the OpenAPI document. */
  file?: FileDoc;
  /** The `data` a refusal of this route carries (the rows batchAdd refused); refusals carry none otherwise. */
  errorData?: TSchema;
  /** The answer may be cached: it carries an ETag and answers 304 to a matching If-None-Match. */
  cached?: true;
  /**
   * What the route's statements are, when its name does not say it (route-reads.ts): `replica` reads
   * may be served by a streaming replica, `report`s too and with the report statement bound
   * (docs/adr/0101-reads-on-a-streaming-replica.md, docs/adr/0102-statement-bounds-per-kind-of-operation.md).
   */
  reads?: RouteReads;
  /** An upload's file part as the document shows it (default: a required part named `file`). */
  filePart?: { name: string; required: boolean; description: string };
  /**
   * A multipart route: its file parts are received into temporary files within the limits (the
   * configured ones unless narrowed here), its other parts become the body, validated by `body`.
   */
  upload?: true | Partial<UploadLimits>;
  /** A JSON body limit of its own (bytes), for the rare route that takes more than the 1 MiB default. */
  bodyLimit?: number;
  /**
   * Runs after the token check and before the body is read: refusals (rate limits) that must not
   * cost the server the reading of an upload.
   */
  guard?: (ctx: RequestContext) => Promise<void>;
  handler: (ctx: RequestContext, input: HandlerInput<B, Q>, http: HttpHandles) => Promise<HandlerOutput<R>>;
}

/** A file answer as the OpenAPI document describes it. */
export interface FileDoc {
  mediaTypes: string[];
  description: string;
  headers?: Record<string, HeaderDoc>;
  /** answers other than 200 (a download's 206, 304 and 416) */
  statuses?: Record<number, { description: string; headers?: Record<string, HeaderDoc>; empty?: boolean }>;
}

export interface HeaderDoc {
  description: string;
  required?: boolean;
}

/** Lets TypeScript infer the input types from the schemas and check the handler's answer against the response. */
export function defineRoute<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  R extends TSchema | null | 'file' = null,
>(spec: RouteSpec<B, Q, R>): RouteSpec {
  return spec as unknown as RouteSpec;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
    /** set when the route handler started, so a failure is written to the operation log */
    handlerStarted: boolean;
  }
}

export interface RouteDeps {
  db: Db;
  authenticator: Authenticator;
  uploads: { tempDir: string; limits: UploadLimits };
  /**
   * Set when a streaming replica is configured: where sessions' writes are remembered. Every handler
   * then runs in a read context (read-context.ts); without it only reports do (their statement bound).
   */
  sessionWrites: SessionWrites | null;
}

const SUCCESS = { errcode: 0, errmsg: 'success' };

/**
 * Cached reads: an ETag, 304 when the client holds these bytes already, and the body compressed once
 * per cache generation. The spec puts these reads on POST; they change nothing, so a client's
 * If-None-Match is answered with 304 as for GET rather than the useless 412 (docs/adr/0045-region-reads-from-one-cached-list.md).
 */
function sendRawJson(request: FastifyRequest, reply: FastifyReply, out: RawJson) {
  reply.header('etag', out.etag).header('vary', 'accept-encoding').type('application/json; charset=utf-8');
  if (matchesEtag(request.headers['if-none-match'], out.etag)) return reply.code(304).send();
  const encoding = out.body.length >= COMPRESS_MIN_BYTES ? chooseEncoding(request.headers['accept-encoding']) : null;
  if (!encoding) return reply.send(out.body);
  return reply.header('content-encoding', encoding).send(out.encoded(encoding));
}

async function send(request: FastifyRequest, reply: FastifyReply, spec: RouteSpec, out: unknown) {
  if (out instanceof RawJson) return sendRawJson(request, reply, out);
  if (out instanceof XlsxExport || out instanceof EventStream) {
    await out.send(reply);
    return reply;
  }
  if (out instanceof FileResponse) {
    reply.type(out.contentType);
    if (out.options.fileName) reply.header('content-disposition', contentDisposition(out.options.fileName));
    for (const [k, v] of Object.entries(out.options.headers ?? {})) reply.header(k, v);
    return reply.send(out.data);
  }
  // Written out, not `{ ...SUCCESS, data }`: that spread cost ~0.7 µs an answer (docs/adr/0079-objects-built-by-spreading-avoided-in-hot-code.md).
  return spec.response === null ? SUCCESS : { errcode: SUCCESS.errcode, errmsg: SUCCESS.errmsg, data: out };
}

/** The success answer's schema, for Fastify's serializer (the OpenAPI document is built from the routes: platform/openapi). */
function responseSchema(spec: RouteSpec) {
  if (spec.response === 'file') return undefined;
  return { 200: spec.response === null ? VoidEnvelope : Envelope(spec.response) };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export interface Variant {
  method: Method;
  inputFrom: 'body' | 'query';
}

/**
 * The methods a route answers. ANY is any method (spec A §1 convention 1): GET reads the fields from
 * the query string, POST, PUT, PATCH and DELETE from the body, the query string filling what the body
 * lacks. The OpenAPI document lists each of them.
 */
export function variantsOf(spec: RouteSpec): Variant[] {
  if (spec.method !== 'ANY') return [{ method: spec.method, inputFrom: spec.method === 'GET' ? 'query' : 'body' }];
  return [
    { method: 'POST', inputFrom: 'body' },
    { method: 'GET', inputFrom: 'query' },
    { method: 'PUT', inputFrom: 'body' },
    { method: 'PATCH', inputFrom: 'body' },
    { method: 'DELETE', inputFrom: 'body' },
  ];
}

/**
 * An ANY route called with a body, and an upload's form, take from the query string the fields the
 * body does not have (the body wins), as Spring binds request parameters: the service's own file URLs are
 * `…/oss/download?fileKey=…`, and a client POSTs to them. Done before validation, which so checks
 * the merged request; the query fields are text and read by the query-string rules.
 */
function fillFromQuery(request: FastifyRequest): void {
  const body = request.body;
  const query = request.query as Record<string, unknown> | undefined;
  if (!query || !body || typeof body !== 'object' || Array.isArray(body)) return;
  const target = body as Record<string, unknown>;
  const filled: string[] = [];
  for (const key of Object.keys(query)) {
    if (Object.hasOwn(target, key)) continue;
    Object.defineProperty(target, key, { value: query[key], enumerable: true, writable: true, configurable: true });
    filled.push(key);
  }
  if (filled.length > 0) markTextFields(target, filled);
}

function checkDeclaration(spec: RouteSpec): void {
  const staffMayCall = spec.auth === 'open' || (typeof spec.auth === 'object' && spec.auth.kinds.includes('admin'));
  if (staffMayCall && spec.permission === undefined) {
    throw new Error(`route ${spec.path} is open to staff but declares no permission`);
  }
  if (spec.response === 'file' && !spec.file)
    throw new Error(`route ${spec.path} answers a file but does not describe it (file)`);
  if (spec.method === 'ANY' && spec.auth === 'open') {
    throw new Error(`route ${spec.path} is signed, so it cannot be ANY (its query fields would not be signed)`);
  }
}

function mount(app: FastifyInstance, spec: RouteSpec, deps: RouteDeps): void {
  checkDeclaration(spec);
  const permission = spec.permission || undefined;
  // One object for every request of the route: the context only reads it.
  const operation = spec.operation ? Object.freeze({ module: spec.operation[0], action: spec.operation[1] }) : null;
  const limits = spec.upload ? { ...deps.uploads.limits, ...(spec.upload === true ? {} : spec.upload) } : null;
  const reads = routeReads(spec);
  // A context costs every request of the route an AsyncLocalStorage run: only where it changes something.
  const inContext = deps.sessionWrites !== null || reads === 'report';
  for (const channel of spec.channels) {
    const url = CHANNEL_PREFIX[channel] + spec.path;
    for (const variant of variantsOf(spec)) {
      // An ANY route reads the same fields from the query string when called with GET.
      const bodySchema = variant.inputFrom === 'body' ? spec.body : undefined;
      const querySchema = spec.method === 'ANY' ? (variant.inputFrom === 'query' ? spec.body : undefined) : spec.query;
      // An upload's form fields too (Spring binds a @ModelAttribute from the query and the form), unless
      // the call is signed: a signature covers the body, not the query string.
      const mergeQuery =
        (spec.method === 'ANY' && variant.inputFrom === 'body') || (limits !== null && spec.auth !== 'open');
      app.route({
        method: variant.method,
        url,
        ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
        schema: {
          ...(bodySchema ? { body: bodySchema } : {}),
          ...(querySchema ? { querystring: querySchema } : {}),
          ...(responseSchema(spec) ? { response: responseSchema(spec) } : {}),
        },
        // Tokens are checked before the body is read, so a stranger's body is never parsed.
        // Hooks with nothing to wait for are plain callbacks: an async hook costs every request a
        // promise and a microtask turn in Fastify's hook runner (profiled on the hot routes).
        onRequest:
          spec.auth === 'public' && !spec.guard
            ? (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
                request.ctx.channel = channel;
                request.ctx.operation = operation;
                done();
              }
            : async (request: FastifyRequest) => {
                request.ctx.channel = channel;
                request.ctx.operation = operation;
                await deps.authenticator.authenticateToken(request, channel, spec.auth, permission);
                if (spec.guard) await spec.guard(request.ctx);
              },
        preValidation:
          limits || spec.auth === 'open'
            ? async (request: FastifyRequest) => {
                if (limits) request.body = await receiveMultipart(request, deps.uploads.tempDir, limits);
                else if (bodySchema && request.body === undefined) request.body = {};
                if (mergeQuery) fillFromQuery(request);
                // Signatures cover the raw body, so they are checked once it has been read whole.
                await deps.authenticator.authenticateSignature(request, spec.auth);
              }
            : (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
                // A POST without any body (no Content-Type either) is an empty request object, as an
                // empty JSON body already is (docs/architecture.md §5.2): paging and filter fields are all optional.
                if (bodySchema && request.body === undefined) request.body = {};
                if (mergeQuery) fillFromQuery(request);
                done();
              },
        // Before the answer leaves, so a client never sees its upload's temporary files linger.
        ...(limits
          ? {
              onSend: async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
                await discardUploads(request);
                return payload;
              },
            }
          : {}),
        handler: async (request, reply) => {
          request.handlerStarted = true;
          const ctx = request.ctx;
          const files = request.uploadedFiles ?? [];
          const input =
            spec.method === 'ANY'
              ? {
                  body: (variant.inputFrom === 'query' ? request.query : request.body) as never,
                  query: undefined as never,
                  files,
                }
              : { body: request.body as never, query: request.query as never, files };
          if (!inContext) {
            const out = await spec.handler(ctx, input, { request, reply });
            if (ctx.operation && ctx.operationLog === 'none') await recordOperation(deps.db, ctx);
            return send(request, reply, spec, out);
          }
          // The handler and the answer it streams (exports read while they send) run as the route's
          // kind; the operation-log row between them is the pipeline's own write, on the primary.
          const readCtx = newReadContext(reads, ctx.sessionId, deps.sessionWrites);
          const out = await runInReadContext(readCtx, () => spec.handler(ctx, input, { request, reply }));
          if (ctx.operation && ctx.operationLog === 'none') await recordOperation(deps.db, ctx);
          return runInReadContext(readCtx, () => send(request, reply, spec, out));
        },
      });
    }
  }
}

/**
 * Mounts every route under its channel prefixes. Upload routes live in a context of their own that
 * alone parses multipart bodies (and refuses any other); everywhere else JSON and form bodies are
 * accepted (platform/http/body.ts).
 */
export async function registerRoutes(app: FastifyInstance, routes: RouteSpec[], deps: RouteDeps): Promise<void> {
  for (const spec of routes.filter((r) => !r.upload)) mount(app, spec, deps);
  const uploads = routes.filter((r) => r.upload);
  if (uploads.length === 0) return;
  await app.register(async (child) => {
    await child.register(multipart, { throwFileSizeLimit: true });
    for (const spec of uploads) mount(child, spec, deps);
  });
}
