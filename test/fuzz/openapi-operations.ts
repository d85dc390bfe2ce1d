/** The operations of the app's own OpenAPI document, and plausible values drawn from their schemas. */

export type Schema = Record<string, any>;

export interface Operation {
  method: 'GET' | 'POST';
  path: string;
  body?: Schema;
  query: Array<{ name: string; required?: boolean; schema: Schema }>;
}

// Operations that end the caller's session would cut the run short; their input is empty anyway.
const SKIP = /\/(logout|checkerLogout)$/;

/** The non-null branch of a nullable schema. */
export function first(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) return first(schema.anyOf.find((b: Schema) => b.type !== 'null') ?? schema.anyOf[0]);
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type.find((x: string) => x !== 'null') };
  return schema;
}

/** A plausible value for a schema: only what the schema itself says. */
export function sample(raw: Schema): unknown {
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

/**
 * The schema with its component references (`#/components/schemas/X`) replaced by the components
 * themselves, so the fuzzer reads fields directly; a recursive component stops at its second visit.
 */
export function resolveRefs(doc: any, schema: Schema | undefined, seen: string[] = []): Schema | undefined {
  if (!schema || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map((s) => resolveRefs(doc, s, seen)) as unknown as Schema;
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/components/schemas/')) {
    const name = schema.$ref.slice('#/components/schemas/'.length);
    if (seen.includes(name)) return { type: 'object' };
    return resolveRefs(doc, doc.components.schemas[name], [...seen, name]);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, typeof v === 'object' && v !== null ? resolveRefs(doc, v, seen) : v]),
  );
}

export function operations(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    if (SKIP.test(path)) continue;
    for (const method of ['get', 'post'] as const) {
      const op = item[method];
      if (!op) continue;
      // An event stream stays open while its input is good, so a fuzzed call would never end; its
      // refusals are tested in test/checker/admissions.test.ts.
      if (op.responses?.['200']?.content?.['text/event-stream']) continue;
      out.push({
        method: method.toUpperCase() as 'GET' | 'POST',
        path,
        body: resolveRefs(doc, op.requestBody?.content?.['application/json']?.schema),
        query: (op.parameters ?? [])
          .filter((p: any) => p.in === 'query')
          .map((p: any) => ({ ...p, schema: resolveRefs(doc, p.schema) })),
      });
    }
  }
  return out;
}
