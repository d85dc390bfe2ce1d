import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Db } from '../db/database.js';
import { recordOperation } from '../oplog/oplog.js';
import { CHANNEL_PREFIX, type AccountKind, type Channel, type RequestContext } from './context.js';
import { contentDisposition, FileResponse, RawJson } from './responses.js';
import { Envelope, VoidEnvelope } from './schemas.js';
import type { Authenticator } from './authenticate.js';

/**
 * Who may call a route: nobody in particular (`public`), a signed open app or staff token (`open`),
 * or a session of one of the listed account kinds bound to the route's channel.
 */
export type AuthRule = 'public' | 'open' | { kinds: AccountKind[] };

type In<S> = S extends TSchema ? Static<S> : undefined;

export interface HttpHandles {
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface RouteSpec<B extends TSchema | undefined = TSchema | undefined, Q extends TSchema | undefined = TSchema | undefined> {
  method: 'GET' | 'POST' | 'ANY';
  path: string;
  channels: Channel[];
  auth: AuthRule;
  /**
   * Required of staff accounts (DESIGN.md §5.6). Every route open to staff must say which, or `false`
   * for the few every logged-in staff member may call (logout); registration refuses a route that forgets.
   */
  permission?: string | false;
  /** operation-log labels: [module, action] */
  operation?: [string, string];
  summary: string;
  tags: string[];
  body?: B;
  query?: Q;
  /** the `data` schema; null for void operations; 'file' for raw bytes */
  response: TSchema | null | 'file';
  handler: (ctx: RequestContext, input: { body: In<B>; query: In<Q> }, http: HttpHandles) => Promise<unknown>;
}

/** Identity function that lets TypeScript infer the handler's input types from the schemas. */
export function defineRoute<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined>(
  spec: RouteSpec<B, Q>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
    /** set when the route handler started, so a failure is written to the operation log */
    handlerStarted: boolean;
  }
}

const SUCCESS = { errcode: 0, errmsg: 'success' };

function send(reply: FastifyReply, spec: RouteSpec, out: unknown) {
  if (out instanceof RawJson) return reply.type('application/json; charset=utf-8').send(out.body);
  if (out instanceof FileResponse) {
    reply.type(out.contentType);
    if (out.options.fileName) reply.header('content-disposition', contentDisposition(out.options.fileName));
    for (const [k, v] of Object.entries(out.options.headers ?? {})) reply.header(k, v);
    return reply.send(out.data);
  }
  return spec.response === null ? SUCCESS : { ...SUCCESS, data: out };
}

function responseSchema(spec: RouteSpec) {
  if (spec.response === 'file') return undefined;
  return { 200: spec.response === null ? VoidEnvelope : Envelope(spec.response) };
}

function security(spec: RouteSpec): Array<Record<string, string[]>> {
  if (spec.auth === 'public') return [];
  if (spec.auth === 'open') return [{ openSignature: [] }, { bearer: [] }];
  return [{ bearer: [] }];
}

export function registerRoutes(app: FastifyInstance, routes: RouteSpec[], deps: { db: Db; authenticator: Authenticator }): void {
  for (const spec of routes) {
    if (typeof spec.auth === 'object' && spec.auth.kinds.includes('admin') && spec.permission === undefined) {
      throw new Error(`route ${spec.path} is open to staff but declares no permission`);
    }
    for (const channel of spec.channels) {
      const url = CHANNEL_PREFIX[channel] + spec.path;
      const variants: Array<{ method: 'GET' | 'POST'; inputFrom: 'body' | 'query' }> =
        spec.method === 'ANY' ? [{ method: 'POST', inputFrom: 'body' }, { method: 'GET', inputFrom: 'query' }]
          : [{ method: spec.method, inputFrom: spec.method === 'GET' ? 'query' : 'body' }];
      for (const variant of variants) {
        // An ANY route reads the same fields from the query string when called with GET.
        const bodySchema = variant.method === 'POST' ? spec.body : undefined;
        const querySchema = spec.method === 'ANY' && variant.method === 'GET' ? spec.body : spec.query;
        app.route({
          method: variant.method,
          url,
          schema: {
            summary: spec.summary,
            tags: spec.tags,
            security: security(spec),
            ...(bodySchema ? { body: bodySchema } : {}),
            ...(querySchema ? { querystring: querySchema } : {}),
            ...(responseSchema(spec) ? { response: responseSchema(spec) } : {}),
          },
          preValidation: async (request) => {
            // A POST without any body (no Content-Type either) is an empty request object, as an
            // empty JSON body already is (DESIGN.md §5.2): paging and filter fields are all optional.
            if (bodySchema && request.body === undefined) request.body = {};
            request.ctx.channel = channel;
            request.ctx.operation = spec.operation ? { module: spec.operation[0], action: spec.operation[1] } : null;
            await deps.authenticator.authenticate(request, channel, spec.auth, spec.permission || undefined);
          },
          handler: async (request, reply) => {
            request.handlerStarted = true;
            const ctx = request.ctx;
            const input = spec.method === 'ANY'
              ? { body: (variant.inputFrom === 'query' ? request.query : request.body) as never, query: undefined as never }
              : { body: request.body as never, query: request.query as never };
            const out = await spec.handler(ctx, input, { request, reply });
            if (ctx.operation && ctx.operationLog === 'none') await recordOperation(deps.db, ctx);
            return send(reply, spec, out);
          },
        });
      }
    }
  }
}
