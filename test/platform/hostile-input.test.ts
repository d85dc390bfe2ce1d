import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { issueSession } from '../helpers/platform-fixtures.js';
import { staffSession } from '../helpers/staff.js';
import { openApiDocument } from '../../src/platform/openapi.js';

/**
 * Every operation the app serves, read from its own OpenAPI document (so operations added later are
 * covered without touching this file), gets each of its fields replaced by hostile values, the other
 * required fields plausible. None may answer with a server error.
 */

type Schema = Record<string, any>;
interface Operation {
  method: 'GET' | 'POST';
  path: string;
  body?: Schema;
  query: Array<{ name: string; required?: boolean; schema: Schema }>;
}

const HOSTILE: unknown[] = [
  '\u0000', 'a\u0000b', '\u001b[31m', '\u007f', 'Infinity', '-Infinity', '1e999', 'NaN', '0x10', '', '   ', '\u3000', ' \t ',
  '9'.repeat(400), 'x'.repeat(70_000), 1e308, -1e308, 2 ** 63, -1, 0, 1.5, true, false, null, [], [1], [null], {}, { a: 1 },
  '2024-13-45 25:61:61', '9999-99-99', '../../etc/passwd', "' or 1=1 --", '𝒳'.repeat(100), '\ud800',
];
const HOSTILE_QUERY = ['%00', 'a%00b', 'Infinity', '1e999', '0x10', '', '%20%20', '9'.repeat(400), 'fe80::1%25eth0', '%E3%80%80', '-1', 'true', 'x'.repeat(5000)];

const CONTROL_REFUSAL = 'must not contain control characters';
// Operations that end the caller's session would cut the run short; their input is empty anyway.
const SKIP = /\/(logout|checkerLogout)$/;

function first(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) return first(schema.anyOf.find((b: Schema) => b.type !== 'null') ?? schema.anyOf[0]);
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type.find((x: string) => x !== 'null') };
  return schema;
}

/** A plausible value for a schema: only what the schema itself says. */
function sample(raw: Schema): unknown {
  const s = first(raw);
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'string':
      if (typeof s.pattern === 'string' && s.pattern.includes('\\d{4}-')) return '2026-01-01 00:00:00';
      if (typeof s.pattern === 'string' && s.pattern.startsWith('^https?')) return 'https://example.com/a.png';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
      return s.minimum ?? 1;
    case 'number':
      return s.minimum ?? 0;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items ?? {}));
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k: string) => [k, sample(s.properties?.[k] ?? {})]));
    default:
      return 'x';
  }
}

function operations(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    if (SKIP.test(path)) continue;
    for (const method of ['get', 'post'] as const) {
      const op = item[method];
      if (!op) continue;
      out.push({
        method: method.toUpperCase() as 'GET' | 'POST',
        path,
        body: op.requestBody?.content?.['application/json']?.schema,
        query: (op.parameters ?? []).filter((p: any) => p.in === 'query'),
      });
    }
  }
  return out;
}

let t: TestApp;
/** Every kind of session there is; each operation is called with one it accepts. */
let tokens: string[] = [];

/**
 * Fresh sessions of every kind. The staff one is not user 1: operations fuzzed with id 1 (reset a
 * password, disable a user) then act on someone else, though they may still end sessions, so the
 * run renews them when that happens.
 */
async function newSessions(): Promise<string[]> {
  return [
    (await staffSession(t, { kind: 'platform', permissions: ['*'] })).token,
    (await issueSession(t, { kind: 'checker' }, 'app')).accessToken,
    (await issueSession(t, { kind: 'member' }, 'mp')).accessToken,
    (await issueSession(t, { kind: 'bank' }, 'manage')).accessToken,
  ];
}

beforeAll(async () => {
  t = await createTestApp();
  tokens = await newSessions();
});

/** The first session the operation does not refuse as of the wrong kind or channel (else the staff one). */
async function tokenFor(op: Operation, payload: unknown): Promise<string> {
  for (const token of tokens) {
    const res = await t.app.inject({ method: op.method, url: op.path, headers: { authorization: `Bearer ${token}` }, ...(payload !== undefined ? { payload: payload as object } : {}) });
    const answer = (() => {
      try {
        return res.json();
      } catch {
        return {}; // a file answer: the operation took this session
      }
    })();
    if (answer.errcode !== 401) return token;
  }
  return tokens[0];
}
afterAll(() => t?.close());

describe('hostile values in every field of every operation', () => {
  it('never answer with a server error', async () => {
    const ops = operations(openApiDocument(t.app));
    expect(ops.length).toBeGreaterThan(10);
    const failures: string[] = [];
    let sent = 0;
    let token = '';
    const check = async (op: Operation, label: string, url: string, payload?: unknown, refusal?: string) => {
      const send = () => t.app.inject({ method: op.method, url, headers: { authorization: `Bearer ${token}` }, ...(payload !== undefined ? { payload: payload as object } : {}) });
      let res = await send();
      if (res.statusCode === 200 && /"errcode":401,"errmsg":"the access token is invalid or has expired"/.test(res.body)) {
        // an earlier fuzzed call ended this session: renew them all and send again
        const index = tokens.indexOf(token);
        tokens = await newSessions();
        token = tokens[Math.max(0, index)];
        res = await send();
      }
      sent++;
      let answer: { errcode?: unknown; errmsg?: unknown } = {};
      try {
        answer = res.json();
      } catch {
        answer = { errcode: 'not JSON' };
      }
      const { errcode } = answer;
      if (res.statusCode >= 500 || (typeof errcode === 'number' && errcode >= 500 && errcode < 1000)) {
        failures.push(`${op.method} ${label} → HTTP ${res.statusCode} errcode ${String(errcode)}`);
      } else if (refusal !== undefined && (errcode !== 400 || answer.errmsg !== refusal)) {
        failures.push(`${op.method} ${label} → ${JSON.stringify(answer)}, not the 400 "${refusal}"`);
      }
    };

    for (const op of ops) {
      token = await tokenFor(op, op.method === 'POST' ? (op.body ? sample(op.body) : {}) : undefined);
      const querySample = Object.fromEntries(op.query.filter((q) => q.required).map((q) => [q.name, String(sample(q.schema))]));
      const queryString = (over: Record<string, string>) => new URLSearchParams({ ...querySample, ...over }).toString().replace(/%25/g, '%');
      for (const q of op.query) {
        for (const v of HOSTILE_QUERY) {
          const refusal = v.includes('%00') ? `${q.name} is invalid: ${CONTROL_REFUSAL}` : undefined;
          await check(op, `${op.path}?${q.name}=${v}`, `${op.path}?${queryString({ [q.name]: v })}`, op.method === 'POST' ? {} : undefined, refusal);
        }
      }
      if (op.method !== 'POST' || !op.body) continue;
      const base = sample(op.body) as Record<string, unknown>;
      const qs = op.query.length ? `?${queryString({})}` : '';
      for (const field of Object.keys(first(op.body).properties ?? {})) {
        for (const v of HOSTILE) {
          // a control character is refused by the input guard itself, naming the field, whatever the field
          const refusal = typeof v === 'string' && /[\u0000\u001b\u007f]/.test(v) ? `${field} is invalid: ${CONTROL_REFUSAL}` : undefined;
          await check(op, `${op.path} ${field}=${JSON.stringify(v).slice(0, 40)}`, op.path + qs, { ...base, [field]: v }, refusal);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(500);
  }, 300_000);
});
