import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { issueSession } from '../helpers/platform-fixtures.js';
import { staffSession } from '../helpers/staff.js';
import { openApiDocument } from '../../src/platform/openapi/register.js';
import { casesFor, seeded, type Case, type Level } from './cases.js';
import { operations, sample, type Operation } from './openapi-operations.js';

/**
 * Every operation the app serves, read from its own OpenAPI document (operations added later are
 * covered without touching this file), gets hostile values in each field, fields of the wrong type,
 * missing required fields, deep nesting, huge arrays, invalid UTF-8, other content types and random
 * bodies. None may answer with a server error or anything but the envelope (or a file), and an
 * invalid body is a 400 naming the field.
 *
 * The suite runs a seeded share (`FUZZ_SEED`, else one per day, printed on failure); `npm run fuzz`
 * runs every hostile value and 300 random bodies per operation.
 */
const FULL = process.env.FUZZ === 'full';
const LEVEL: Level = FULL ? { valuesPerField: Infinity, randomBodies: 300 } : { valuesPerField: 6, randomBodies: 8 };
const SEED = Number(process.env.FUZZ_SEED) || Math.floor(Date.now() / 86_400_000);

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
afterAll(() => t?.close());

function parse(body: string): { errcode?: unknown; errmsg?: unknown } | null {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

/** The first session the operation does not refuse as of the wrong kind or channel (else the staff one), and its answer. */
async function probe(op: Operation): Promise<{ token: string; answer: { errcode?: unknown; errmsg?: unknown } }> {
  const payload = op.method === 'POST' ? (op.body ? sample(op.body) : {}) : undefined;
  let fallback = { token: tokens[0], answer: {} as { errcode?: unknown; errmsg?: unknown } };
  for (const token of tokens) {
    const res = await t.app.inject({
      method: op.method,
      url: op.path,
      headers: { authorization: `Bearer ${token}` },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    const answer = parse(res.body) ?? { errcode: 0 }; // a file answer: the operation took this session
    if (answer.errcode !== 401) return { token, answer };
    if (token === tokens[0]) fallback = { token, answer };
  }
  return fallback;
}

describe(`fuzzing every operation from the OpenAPI document (${FULL ? 'full run' : 'seeded share'}, seed ${SEED})`, () => {
  it(
    'never answers with a server error or without the envelope, and names the field of an invalid body',
    async () => {
      const ops = operations(openApiDocument(t.app));
      expect(ops.length).toBeGreaterThan(100);
      const random = seeded(SEED);
      const failures: string[] = [];
      let sent = 0;
      let namedChecks = 0;
      let token = '';
      const send = (c: Case) =>
        c.raw
          ? t.app.inject({
              method: 'POST',
              url: c.url,
              headers: { authorization: `Bearer ${token}`, 'content-type': c.raw.contentType },
              payload: c.raw.body,
            })
          : t.app.inject({
              method: c.payload === undefined ? 'GET' : 'POST',
              url: c.url,
              headers: { authorization: `Bearer ${token}` },
              ...(c.payload !== undefined ? { payload: c.payload as object } : {}),
            });

      for (const op of ops) {
        const probed = await probe(op);
        token = probed.token;
        // Field names are only checked where the plausible body itself passes validation and the session is taken.
        const checkNames =
          probed.answer.errcode !== 401 &&
          !(probed.answer.errcode === 400 && /is (required|invalid)/.test(String(probed.answer.errmsg)));
        for (const c of casesFor(op, LEVEL, random, SEED, checkNames)) {
          if (op.method === 'GET' && c.payload !== undefined && !c.raw) continue;
          let res = await send(c);
          if (
            res.statusCode === 200 &&
            /"errcode":401,"errmsg":"the access token is invalid or has expired"/.test(res.body)
          ) {
            // an earlier fuzzed call ended this session: renew them all and send again
            const index = tokens.indexOf(token);
            tokens = await newSessions();
            token = tokens[Math.max(0, index)];
            res = await send(c);
          }
          sent++;
          if (c.names !== undefined) namedChecks++;
          const answer = parse(res.body);
          // A file or stream (NDJSON's type says json too): anything but the JSON envelope's own type.
          const isFile =
            res.statusCode === 200 && !String(res.headers['content-type'] ?? '').startsWith('application/json');
          const where = `${op.method} ${c.label}`;
          if (res.statusCode >= 500) {
            failures.push(`${where} → HTTP ${res.statusCode} ${res.body.slice(0, 120)}`);
          } else if (
            !isFile &&
            (answer === null || typeof answer.errcode !== 'number' || typeof answer.errmsg !== 'string')
          ) {
            failures.push(`${where} → not an envelope: ${res.body.slice(0, 120)}`);
          } else if (answer && typeof answer.errcode === 'number' && answer.errcode >= 500 && answer.errcode < 1000) {
            failures.push(`${where} → errcode ${answer.errcode}`);
          } else if (c.refusal !== undefined && (answer?.errcode !== 400 || answer.errmsg !== c.refusal)) {
            failures.push(`${where} → ${JSON.stringify(answer)}, not the 400 "${c.refusal}"`);
          } else if (c.names !== undefined && (answer?.errcode !== 400 || !String(answer.errmsg).includes(c.names))) {
            failures.push(`${where} → ${JSON.stringify(answer)}, not a 400 naming ${c.names}`);
          }
        }
      }
      console.log(
        `fuzz: ${ops.length} operations, ${sent} requests (${namedChecks} invalid bodies checked for the field they name), seed ${SEED}`,
      );
      expect(namedChecks).toBeGreaterThan(ops.length);
      expect(failures).toEqual([]);
      expect(sent).toBeGreaterThan(FULL ? 20_000 : 3_000);
    },
    FULL ? 3_600_000 : 300_000,
  );
});
