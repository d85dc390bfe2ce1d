import fc from 'fast-check';
import { first, sample, type Operation, type Schema } from './openapi-operations.js';

/** Values that broke services like ours: control characters, overflowing numbers, paths, injections. */
export const HOSTILE: unknown[] = [
  '\u0000',
  'a\u0000b',
  '\u001b[31m',
  '\u007f',
  'Infinity',
  '-Infinity',
  '1e999',
  'NaN',
  '0x10',
  '',
  '   ',
  '\u3000',
  ' \t ',
  '9'.repeat(400),
  'x'.repeat(70_000),
  1e308,
  -1e308,
  2 ** 63,
  -1,
  0,
  1.5,
  true,
  false,
  null,
  [],
  [1],
  [null],
  {},
  { a: 1 },
  '2024-13-45 25:61:61',
  '9999-99-99',
  '../../etc/passwd',
  "' or 1=1 --",
  '1; drop table member; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '𝒳'.repeat(100),
  '\ud800',
];
export const HOSTILE_QUERY = [
  '%00',
  'a%00b',
  'Infinity',
  '1e999',
  '0x10',
  '',
  '%20%20',
  '9'.repeat(400),
  'fe80::1%25eth0',
  '%E3%80%80',
  '-1',
  'true',
  'x'.repeat(5000),
  "'%20or%201=1--",
];

/** A request the fuzzer sends, and what the answer must be besides "no server error, an envelope". */
export interface Case {
  label: string;
  url: string;
  payload?: unknown;
  /** A raw body with its own content type (invalid UTF-8, a type we do not take). */
  raw?: { body: Buffer | string; contentType: string };
  /** The answer must be this exact 400 message. */
  refusal?: string;
  /** The answer must be a 400 whose message names this field. */
  names?: string;
}

/** mulberry32: small, seeded, good enough to choose a share of the cases reproducibly. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function choose<T>(list: T[], n: number, random: () => number): T[] {
  if (n >= list.length) return list;
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

/** A JSON value of a type the field does not take, which no lenient parsing could turn into one it does. */
function wrongType(schema: Schema): unknown {
  const s = first(schema);
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 2) return undefined;
  switch (s.type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { fuzz: 1 };
    case 'array':
      return 'not a list';
    case 'object':
      return 'not an object';
    default:
      return undefined;
  }
}

export interface Level {
  /** hostile values tried per field (all of them when it is larger than the list) */
  valuesPerField: number;
  /** random bodies per operation, drawn from the field names with arbitrary JSON values */
  randomBodies: number;
}

const CONTROL_REFUSAL = 'must not contain control characters';

export function casesFor(op: Operation, level: Level, random: () => number, seed: number, checkNames: boolean): Case[] {
  const out: Case[] = [];
  const querySample = Object.fromEntries(
    op.query.filter((q) => q.required).map((q) => [q.name, String(sample(q.schema))]),
  );
  const queryString = (over: Record<string, string>) =>
    new URLSearchParams({ ...querySample, ...over }).toString().replace(/%25/g, '%');
  const emptyBody = op.method === 'POST' ? {} : undefined;
  for (const q of op.query) {
    for (const v of choose(HOSTILE_QUERY, level.valuesPerField, random)) {
      const refusal = v.includes('%00') ? `${q.name} is invalid: ${CONTROL_REFUSAL}` : undefined;
      out.push({
        label: `${op.path}?${q.name}=${v.slice(0, 40)}`,
        url: `${op.path}?${queryString({ [q.name]: v })}`,
        payload: emptyBody,
        refusal,
      });
    }
  }
  if (op.method !== 'POST' || !op.body) return out;
  const schema = first(op.body);
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required: string[] = schema.required ?? [];
  const base = sample(op.body) as Record<string, unknown>;
  const url = op.path + (op.query.length ? `?${queryString({})}` : '');
  const fields = Object.keys(properties);

  for (const field of fields) {
    for (const v of choose(HOSTILE, level.valuesPerField, random)) {
      // a control character is refused by the input guard itself, naming the field, whatever the field
      const refusal =
        typeof v === 'string' && /[\u0000\u001b\u007f]/.test(v) ? `${field} is invalid: ${CONTROL_REFUSAL}` : undefined;
      out.push({
        label: `${op.path} ${field}=${JSON.stringify(v).slice(0, 40)}`,
        url,
        payload: { ...base, [field]: v },
        refusal,
      });
    }
    const wrong = wrongType(properties[field]);
    if (wrong !== undefined)
      out.push({
        label: `${op.path} ${field} of the wrong type`,
        url,
        payload: { ...base, [field]: wrong },
        names: checkNames ? field : undefined,
      });
    if (first(properties[field]).type === 'array') {
      out.push({
        label: `${op.path} ${field} with 100,000 items`,
        url,
        payload: { ...base, [field]: Array.from({ length: 100_000 }, (_, i) => i) },
      });
    }
  }
  for (const field of required) {
    const { [field]: _, ...rest } = base;
    out.push({ label: `${op.path} without ${field}`, url, payload: rest, names: checkNames ? field : undefined });
  }
  const someField = fields[0] ?? 'x';
  // as text: a client's own JSON.stringify would overflow its stack first
  const deep = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
  out.push({
    label: `${op.path} ${someField} nested 5,000 deep`,
    url,
    raw: { body: `{"${someField}":${deep}}`, contentType: 'application/json' },
  });
  out.push({
    label: `${op.path} invalid UTF-8`,
    url,
    raw: {
      body: Buffer.concat([
        Buffer.from(`{"${someField}":"`),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
        Buffer.from('"}'),
      ]),
      contentType: 'application/json',
    },
  });
  out.push({ label: `${op.path} as text/plain`, url, raw: { body: JSON.stringify(base), contentType: 'text/plain' } });
  out.push({
    label: `${op.path} truncated JSON`,
    url,
    raw: { body: JSON.stringify(base).slice(0, -1) || '{', contentType: 'application/json' },
  });
  if (level.randomBodies > 0 && fields.length > 0) {
    const bodies = fc.sample(
      fc.dictionary(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 3 }), { maxKeys: fields.length }),
      { seed, numRuns: level.randomBodies },
    );
    bodies.forEach((b, i) =>
      out.push({ label: `${op.path} random body #${i} (seed ${seed})`, url, payload: { ...base, ...b } }),
    );
  }
  return out;
}
