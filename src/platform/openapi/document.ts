import { CHANNEL_PREFIX, type AccountKind, type Channel } from '../http/context.js';
import { variantsOf, type RouteSpec } from '../http/routes.js';
import { errcodesOf } from './errcodes-of.js';
import { requestExample } from './examples.js';
import { operationId } from './operation-ids.js';
import { SchemaComponents } from './schema-components.js';
import { SECURITY_SCHEMES, securityOf } from './security.js';

type Json = Record<string, unknown>;

export interface DocumentOptions {
  /** where clients reach the service (the configured public address) */
  serverUrl: string;
  version: string;
}

const DESCRIPTION = [
  'Every JSON answer is the envelope `{errcode, errmsg, data}`: errcode 0 is success and carries `data`',
  '(none for operations without data); any other errcode is a refusal without `data` (batchAdd alone',
  'adds the rows that failed), answered with HTTP 200 like a success. HTTP 500 and 503 carry the',
  'envelope of errcode 500 and 503. Each operation lists the errcodes it can answer.',
  '',
  'Prefixes: `/app-api` (verifier app), `/manage-api` (staff, and the bank channel under',
  '`/manage-api/bank`), `/mp-api` (members), `/open-api` (signed open calls). Staff log in with',
  '`POST /manage-api/auth/login` (captcha from `GET /manage-api/auth/getRandomCodeImg`) and send',
  '`Authorization: Bearer <accessToken>` (the Bearer prefix is optional). Open calls are signed:',
  '`X-App-Key`, `X-Timestamp` (ms), `X-Nonce` (single use) and `X-Sign`, the hex HMAC-SHA256 with the',
  "app's secret of `METHOD\\nPATH\\nX-Timestamp\\nX-Nonce\\nsha256hex(body)`.",
  '',
  'Request bodies are JSON (a body whose only key is `body` holding an object is unwrapped) or',
  '`application/x-www-form-urlencoded`; uploads are `multipart/form-data`. Numbers may be sent as',
  'decimal strings, enumeration codes as strings or numbers; unknown fields are ignored; an optional',
  'field sent as null is absent. Paging: `pageNum` from 1 (0 or less reads as 1), `pageSize` 1–200',
  '(above 200 reads as 200, 0 or less as 10). Dates are `YYYY-MM-DD HH:mm:ss` in the service time',
  'zone; money is integer cents.',
].join('\n');

const jsonOf = (schema: Json, example?: unknown): Json => ({ schema, ...(example === undefined ? {} : { example }) });

/** The OpenAPI 3.1 document of the routes: the contract integrators generate clients from. */
export function buildOpenApiDocument(routes: RouteSpec[], opts: DocumentOptions): Json {
  const components = new SchemaComponents();
  const paths: Record<string, Json> = {};
  const ids = new Set<string>();
  const tags = new Set<string>();
  for (const route of routes) {
    for (const channel of route.channels) {
      const url = CHANNEL_PREFIX[channel] + route.path;
      const item = (paths[url] ??= {});
      for (const variant of variantsOf(route)) {
        const id = operationId(channel, route.path, route.method === 'ANY' ? variant.method : null);
        if (ids.has(id)) throw new Error(`operationId ${id} is used twice`);
        ids.add(id);
        route.tags.forEach((t) => tags.add(t));
        item[variant.method.toLowerCase()] = operationOf(
          route,
          channel,
          variant.method,
          variant.inputFrom,
          id,
          components,
        );
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tourism card operations service', version: opts.version, description: DESCRIPTION },
    servers: [{ url: opts.serverUrl }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: { schemas: sortKeys(components.schemas), securitySchemes: SECURITY_SCHEMES },
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

const capitalised = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

function operationOf(
  route: RouteSpec,
  channel: Channel,
  method: string,
  inputFrom: 'body' | 'query',
  id: string,
  components: SchemaComponents,
): Json {
  const op: Json = {
    operationId: id,
    summary: route.summary,
    description: describe(route, channel),
    tags: route.tags,
    security: securityOf(route, channel),
  };
  const input = route.method === 'ANY' ? route.body : inputFrom === 'body' ? route.body : route.query;
  const queryInput = route.method === 'ANY' ? (inputFrom === 'query' ? route.body : undefined) : route.query;
  const bodyInput = inputFrom === 'body' ? route.body : undefined;
  if (queryInput) op.parameters = queryParameters(queryInput as Json, components);
  if (route.upload) op.requestBody = multipartBody(route, bodyInput, components);
  else if (bodyInput) {
    const named = components.component(bodyInput, `${capitalised(id)}Request`);
    const example = requestExample(bodyInput);
    op.requestBody = {
      required: false,
      content: { 'application/json': jsonOf(named, example), 'application/x-www-form-urlencoded': jsonOf(named) },
    };
  } else if (input === undefined && method !== 'GET') {
    // Operations without input take an empty body (or none).
    op.requestBody = { required: false, content: { 'application/json': jsonOf({ type: 'object' }, {}) } };
  }
  op.responses = responsesOf(route, id, components);
  return op;
}

function describe(route: RouteSpec, channel: Channel): string {
  const lines: string[] = [];
  if (route.description) lines.push(route.description, '');
  lines.push(`Callers: ${callers(route, channel)}.`);
  if (route.permission) lines.push(`Staff need the permission \`${route.permission}\`.`);
  if (route.operation) lines.push(`Writes an operation-log entry (${route.operation[0]} / ${route.operation[1]}).`);
  if (route.method === 'ANY') {
    lines.push(
      'Answers any method: GET reads the fields from the query string; POST, PUT, PATCH and DELETE from the body, the query string filling the fields the body lacks.',
    );
  }
  if (route.cached)
    lines.push('The answer carries an ETag; a request with a matching If-None-Match is answered 304 without a body.');
  return lines.join('\n');
}

const KIND_NAMES: Record<AccountKind, string> = {
  admin: 'staff (platform, merchant or shop users)',
  checker: 'verifiers',
  member: 'members',
  bank: 'bank-channel staff and card holders',
  openApp: 'signed open apps',
};

function callers(route: RouteSpec, channel: Channel): string {
  if (route.auth === 'public') return 'anyone, without a token';
  if (route.auth === 'open') return 'signed open apps, or staff with a token';
  const kinds = route.auth.kinds.map((k) => KIND_NAMES[k]).join(' or ');
  return `${kinds}, with a token of the ${CHANNEL_PREFIX[channel]} channel`;
}

/** Query fields as parameters: lists as repeated names (`a=1&a=2`), as the query string carries them. */
function queryParameters(schema: Json, components: SchemaComponents): Json[] {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, raw]) => {
    const s = components.inline(raw);
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(typeof s.description === 'string' ? { description: s.description } : {}),
      schema: s,
      ...(isList(s) ? { style: 'form', explode: true } : {}),
    };
  });
}

const isList = (s: Json) => s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'));

/** A multipart form: the body's fields, inline (a form has no shared shape), and the file part. */
function multipartBody(route: RouteSpec, bodyInput: RouteSpec['body'], components: SchemaComponents): Json {
  const raw = (bodyInput ?? {}) as Json;
  const properties: Json = Object.fromEntries(
    Object.entries((raw.properties ?? {}) as Json).map(([name, s]) => [name, components.inline(s)]),
  );
  const part = route.filePart ?? { name: 'file', required: true, description: 'the file' };
  properties[part.name] = {
    type: 'string',
    contentMediaType: 'application/octet-stream',
    description: part.description,
  };
  const required = [...((raw.required ?? []) as string[]), ...(part.required ? [part.name] : [])];
  const schema = { type: 'object', properties, ...(required.length ? { required } : {}) };
  return {
    required: part.required,
    content: {
      'multipart/form-data': { schema, encoding: { [part.name]: { contentType: 'application/octet-stream' } } },
    },
  };
}

function responsesOf(route: RouteSpec, id: string, components: SchemaComponents): Json {
  const codes = errcodesOf(route);
  const refusal = errorEnvelope(
    codes.filter((c) => c.code !== 0),
    route,
    components,
  );
  const success = successEnvelope(route, id, components);
  const envelope = success ? { oneOf: [success, refusal] } : refusal;
  const responses: Json = {};
  if (route.response === 'file') {
    const file = route.file;
    if (!file) throw new Error(`route ${route.path} answers a file but does not describe it (file)`);
    const bytes = Object.fromEntries(
      file.mediaTypes.map((t) => [t, { schema: { type: 'string', contentMediaType: t } }]),
    );
    responses['200'] = {
      description: `${file.description}; a refusal is the JSON envelope (HTTP 200)`,
      ...(file.headers ? { headers: headersOf(file.headers) } : {}),
      content: { ...bytes, 'application/json': { schema: refusal } },
    };
    for (const [status, other] of Object.entries(file.statuses ?? {})) {
      responses[status] = {
        description: other.description,
        ...(other.headers ? { headers: headersOf(other.headers) } : {}),
        ...(other.empty ? {} : { content: bytes }),
      };
    }
  } else {
    responses['200'] = {
      description: 'The envelope: errcode 0 with the answer, or a refusal',
      content: { 'application/json': { schema: envelope } },
    };
    if (route.cached)
      responses['304'] = { description: 'Not modified: the If-None-Match header named the current ETag' };
  }
  responses['500'] = {
    description: 'Unexpected server error',
    content: { 'application/json': { schema: statusEnvelope(500) } },
  };
  responses['503'] = {
    description: 'A dependency (database, store) is unavailable, or the service is shutting down',
    content: { 'application/json': { schema: statusEnvelope(503) } },
  };
  return responses;
}

/**
 * A file answer's headers. They come with the bytes, not with a refusal (the JSON envelope of the same
 * status), so none is required of the response as a whole; `x-sent-with-file` marks those every file
 * answer carries (test/helpers/contract-check.ts holds the service to it).
 */
function headersOf(headers: Record<string, { description: string; required?: boolean }> | undefined): Json | undefined {
  if (!headers) return undefined;
  return Object.fromEntries(
    Object.entries(headers).map(([name, h]) => [
      name,
      {
        description: h.description,
        required: false,
        ...(h.required ? { 'x-sent-with-file': true } : {}),
        schema: { type: 'string' },
      },
    ]),
  );
}

function successEnvelope(route: RouteSpec, id: string, components: SchemaComponents): Json | null {
  if (route.response === 'file') return null;
  const base = { errcode: { type: 'integer', const: 0 }, errmsg: { type: 'string' } };
  if (route.response === null)
    return { type: 'object', required: ['errcode', 'errmsg'], properties: base, not: { required: ['data'] } };
  return {
    type: 'object',
    required: ['errcode', 'errmsg', 'data'],
    properties: { ...base, data: components.component(route.response, `${capitalised(id)}Data`) },
  };
}

function errorEnvelope(codes: ReturnType<typeof errcodesOf>, route: RouteSpec, components: SchemaComponents): Json {
  const errcode = {
    type: 'integer',
    enum: codes.map((c) => c.code),
    'x-enum-varnames': codes.map((c) => c.name),
    'x-enum-descriptions': codes.map((c) => c.meaning),
    description: `The refusals this operation can answer:\n${codes.map((c) => `- ${c.code} ${c.name}: ${c.meaning}`).join('\n')}`,
  };
  const properties: Json = {
    errcode,
    errmsg: { type: 'string', description: 'what went wrong, written for the person at the client' },
  };
  if (route.errorData) properties.data = components.inline(route.errorData);
  return {
    type: 'object',
    required: ['errcode', 'errmsg'],
    properties,
    ...(route.errorData ? {} : { not: { required: ['data'] } }),
  };
}

function statusEnvelope(code: 500 | 503): Json {
  return {
    type: 'object',
    required: ['errcode', 'errmsg'],
    properties: { errcode: { type: 'integer', const: code }, errmsg: { type: 'string' } },
    not: { required: ['data'] },
  };
}
