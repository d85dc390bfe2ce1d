/**
 * The input rules every route inherits, applied to the body and query string before ajv validates
 * them against the route's schema (ajv itself coerces nothing):
 *
 * - no control characters: C0 controls and DEL are refused in every string and key (tab, line feed and
 *   carriage return excepted); PostgreSQL refuses NUL anyway, and none of them belongs in a field;
 * - scalars as the Java clients send them, no looser: a decimal string ("12", "-3", "1.5") becomes a
 *   number where the schema wants one, and nothing else does (no hex, no exponent, nothing non-finite,
 *   never null, a boolean, a list or an empty string); "true"/"false" become booleans; a number never
 *   becomes a string;
 * - blank is missing: a required string that is empty after trimming (Unicode spaces included) is
 *   reported as missing (unless its schema says `minLength: 0`), and so is a required field sent as null;
 * - an optional field sent as null is absent, as Jackson clients mean it;
 * - no field may be named `__proto__`;
 * - query strings carry only text: there a single value becomes a one-item list where the schema
 *   wants a list, and an empty value of a non-text field is absent; so in the fields of a body that
 *   arrived as text (a form body, query fields merged into an ANY route's body: `markTextFields`).
 */

type Schema = Record<string, unknown>;
export type InputPart = 'body' | 'query';

/** Shaped like ajv's errors, so validation-message.ts words them like every other violation. */
export interface InputIssue {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
  parentSchema?: Schema;
}

export type GuardResult = { ok: true; value: unknown } | { ok: false; errors: InputIssue[] };

export const MAX_INPUT_DEPTH = 64;
/** A list schema's annotation that an empty list is refused (minItems) rather than read as absent. */
export const EMPTY_LIST_KEYWORD = 'x-empty-list';
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const DECIMAL = /^[+-]?\d+(\.\d+)?$/;
const SAFE_INTEGER_RANGE = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

class Refusal extends Error {
  constructor(readonly issue: InputIssue) {
    super(issue.message);
  }
}

const pointer = (path: string, key: string | number) =>
  `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

function refuse(
  path: string,
  keyword: string,
  message: string,
  extra: { params?: Record<string, unknown>; parentSchema?: Schema } = {},
): never {
  throw new Refusal({
    instancePath: path,
    schemaPath: '',
    keyword,
    params: extra.params ?? {},
    message,
    parentSchema: extra.parentSchema,
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a route's object schema declares, merged over its `allOf` parts once. */
interface ObjectShape {
  properties: Record<string, unknown>;
  required: Set<string>;
  /** each property's schema with its `$ref` resolved, filled as fields arrive */
  resolved: Map<string, Schema | undefined>;
}

/**
 * What the walker derives from a route's schemas (types, union branches, object shapes), kept per root
 * schema: the schemas never change after the routes are built, and deriving them again for every
 * field of every request showed in the profile of the cached reads.
 */
class SchemaFacts {
  readonly types = new WeakMap<Schema, Set<string>>();
  readonly objectBranch = new WeakMap<Schema, Schema | undefined>();
  readonly arrayBranch = new WeakMap<Schema, Schema | undefined>();
  readonly shapes = new WeakMap<Schema, ObjectShape>();
}

const factsByRoot = new WeakMap<Schema, SchemaFacts>();
const NO_TYPES: ReadonlySet<string> = new Set();

/**
 * Request objects some of whose top-level fields arrived as text: every field of a form body, the
 * query-string fields merged into the body of an ANY route. Those fields are read by the query-string
 * rules whatever part they are validated as (one value is a one-item list where a list is wanted).
 */
const textFields = new WeakMap<object, Set<string> | 'all'>();

/** Marks top-level fields of a request object (or all of them) as having arrived as text. */
export function markTextFields(value: object, fields: 'all' | Iterable<string>): void {
  const known = textFields.get(value);
  if (known === 'all') return;
  if (fields === 'all') textFields.set(value, 'all');
  else if (known) for (const f of fields) known.add(f);
  else textFields.set(value, new Set(fields));
}

class Walker {
  private readonly facts: SchemaFacts;
  /** the same walk under the query-string rules, for fields that arrived as text (markTextFields) */
  private asText: Walker | undefined;

  constructor(
    private readonly root: Schema,
    private readonly part: InputPart,
  ) {
    let facts = factsByRoot.get(root);
    if (!facts) factsByRoot.set(root, (facts = new SchemaFacts()));
    this.facts = facts;
  }

  /** A local `$ref` (`#/$defs/X`, or TypeBox's bare `X` into `$defs`) resolved; anything else as it is. */
  private resolve(schema: unknown): Schema | undefined {
    let s = isObject(schema) ? schema : undefined;
    for (let hops = 0; s && typeof s.$ref === 'string' && hops < 32; hops++) {
      const name = s.$ref.replace(/^#\/(\$defs|definitions)\//, '');
      const defs = (this.root.$defs ?? this.root.definitions) as Record<string, Schema> | undefined;
      s = defs?.[name];
    }
    return s;
  }

  /** Every JSON type a value may take under the schema (anyOf/oneOf branches included). */
  private types(schema: Schema | undefined): ReadonlySet<string> {
    if (!schema) return NO_TYPES;
    let known = this.facts.types.get(schema);
    if (!known) this.facts.types.set(schema, (known = this.typesOf(schema, 0)));
    return known;
  }

  private typesOf(schema: Schema | undefined, seen: number): Set<string> {
    const out = new Set<string>();
    if (!schema || seen > 8) return out;
    const t = schema.type;
    if (typeof t === 'string') out.add(t);
    else if (Array.isArray(t)) for (const x of t) out.add(String(x));
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches))
        for (const b of branches) for (const x of this.typesOf(this.resolve(b), seen + 1)) out.add(x);
    }
    const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : [];
    for (const v of values) out.add(v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v);
    return out;
  }

  /** The one branch of a union that fits a value of this kind, when exactly one does. */
  private branchFor(schema: Schema | undefined, kind: 'object' | 'array'): Schema | undefined {
    if (!schema) return undefined;
    const known = kind === 'object' ? this.facts.objectBranch : this.facts.arrayBranch;
    if (known.has(schema)) return known.get(schema);
    const branches = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
    let branch: Schema | undefined = schema;
    if (branches) {
      const fitting = branches.map((b) => this.resolve(b)).filter((b) => this.types(b).has(kind));
      branch = fitting.length === 1 ? fitting[0] : undefined;
    }
    known.set(schema, branch);
    return branch;
  }

  /** The properties and required fields of an object schema, its `allOf` parts merged. */
  private shapeOf(own: Schema | undefined): ObjectShape {
    const cached = own && this.facts.shapes.get(own);
    if (cached) return cached;
    const parts = [own, ...(Array.isArray(own?.allOf) ? own.allOf.map((b) => this.resolve(b)) : [])].filter(
      Boolean,
    ) as Schema[];
    const shape: ObjectShape = {
      properties: Object.assign({}, ...parts.map((p) => (isObject(p.properties) ? p.properties : {}))),
      required: new Set(parts.flatMap((p) => (Array.isArray(p.required) ? p.required.map(String) : []))),
      resolved: new Map(),
    };
    if (own) this.facts.shapes.set(own, shape);
    return shape;
  }

  /** A declared field's schema, `$ref` resolved; only declared names are kept, so made-up ones cannot grow the map. */
  private propertySchema(shape: ObjectShape, key: string): Schema | undefined {
    if (!Object.hasOwn(shape.properties, key)) return undefined;
    if (!shape.resolved.has(key)) shape.resolved.set(key, this.resolve(shape.properties[key]));
    return shape.resolved.get(key);
  }

  walk(schema: Schema | undefined, value: unknown, path: string, depth: number): unknown {
    if (depth > MAX_INPUT_DEPTH) refuse(path, 'depth', `must not be nested more than ${MAX_INPUT_DEPTH} levels deep`);
    if (typeof value === 'string') return this.text(schema, value, path);
    if (typeof value === 'number') return this.number(schema, value, path);
    if (Array.isArray(value)) return this.list(schema, value, path, depth);
    if (isObject(value)) return this.object(schema, value, path, depth);
    return value;
  }

  private text(schema: Schema | undefined, value: string, path: string): unknown {
    if (CONTROL.test(value)) refuse(path, 'controlCharacters', 'must not contain control characters');
    if (!schema) return value;
    const types = this.types(schema);
    if (types.size === 0 || types.has('string')) return value;
    const query = this.part === 'query';
    if ((types.has('number') || types.has('integer')) && DECIMAL.test(value)) {
      const n = Number(value);
      if (!Number.isFinite(n)) refuse(path, 'finite', 'must be a finite number');
      return this.number(schema, n, path);
    }
    if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
    if (query && types.has('array')) {
      const items = this.resolve(this.branchFor(schema, 'array')?.items);
      return [this.walk(items, value, pointer(path, 0), 0)];
    }
    return value;
  }

  /** "" for a field of declared types none of which is text (a number, a boolean, a list …). */
  private blankOfNonText(schema: Schema | undefined, raw: unknown): boolean {
    if (raw !== '' || !schema) return false;
    const types = this.types(schema);
    return types.size > 0 && !types.has('string');
  }

  /** [] for a list that must hold items (a Date[] range): a client's way of leaving it unset, unless its schema refuses that. */
  private emptyOfNonEmptyList(schema: Schema | undefined, raw: unknown): boolean {
    if (!Array.isArray(raw) || raw.length > 0 || !schema) return false;
    const own = this.branchFor(schema, 'array');
    return typeof own?.minItems === 'number' && own.minItems > 0 && own[EMPTY_LIST_KEYWORD] !== 'refused';
  }

  private number(schema: Schema | undefined, value: number, path: string): number {
    if (!Number.isFinite(value)) refuse(path, 'finite', 'must be a finite number');
    const types = this.types(schema);
    // An integer field without bounds of its own still must fit a bigint column and a JSON number.
    if (
      types.has('integer') &&
      schema &&
      schema.minimum === undefined &&
      schema.maximum === undefined &&
      !Number.isSafeInteger(Math.trunc(value))
    ) {
      refuse(path, 'maximum', 'out of range', { parentSchema: SAFE_INTEGER_RANGE });
    }
    return value;
  }

  private list(schema: Schema | undefined, value: unknown[], path: string, depth: number): unknown[] {
    const own = this.branchFor(schema, 'array');
    const items = own?.items;
    const prefix = Array.isArray(own?.prefixItems) ? own.prefixItems : Array.isArray(items) ? items : null;
    for (let i = 0; i < value.length; i++) {
      const itemSchema = this.resolve(prefix ? (prefix[i] ?? own?.additionalItems) : items);
      const next = this.walk(itemSchema, value[i], pointer(path, i), depth + 1);
      value[i] = next;
    }
    return value;
  }

  private object(
    schema: Schema | undefined,
    value: Record<string, unknown>,
    path: string,
    depth: number,
  ): Record<string, unknown> {
    const shape = this.shapeOf(this.branchFor(schema, 'object'));
    const required = shape.required;
    const text = path === '' && this.part !== 'query' ? textFields.get(value) : undefined;

    for (const key of Object.keys(value)) {
      const at = pointer(path, key);
      if (CONTROL.test(key)) refuse(at, 'controlCharacters', 'must not contain control characters in its name');
      // JSON.parse keeps "__proto__" as a plain key; assigned back, it would replace the object's prototype.
      if (key === '__proto__') refuse(at, 'name', 'is not an allowed field name');
      const propSchema = this.propertySchema(shape, key);
      const raw = value[key];
      // Jackson reads "" as null for a number or boolean, and the Java clients send [] for a range left
      // unset: both count as absent here too (a required field is then missing), so those clients work.
      if (this.blankOfNonText(propSchema, raw) || this.emptyOfNonEmptyList(propSchema, raw)) {
        if (required.has(key)) refuse(path, 'required', 'is required', { params: { missingProperty: key } });
        delete value[key];
        continue;
      }
      if (raw === null && propSchema && !this.types(propSchema).has('null')) {
        if (required.has(key)) refuse(path, 'required', 'is required', { params: { missingProperty: key } });
        delete value[key];
        continue;
      }
      const walker =
        text && (text === 'all' || text.has(key)) ? (this.asText ??= new Walker(this.root, 'query')) : this;
      const next = walker.walk(propSchema, raw, at, depth + 1);
      // An explicit minLength 0 declares that blank is a value there (a required field "" may clear).
      if (
        required.has(key) &&
        typeof next === 'string' &&
        next.trim() === '' &&
        this.types(propSchema).has('string') &&
        propSchema?.minLength !== 0
      ) {
        refuse(path, 'required', 'is required', { params: { missingProperty: key } });
      }
      value[key] = next;
    }
    return value;
  }
}

/**
 * Applies the rules to one part of a request. The value is normalised in place (numbers from decimal
 * strings, absent nulls) and answered, or the first violation is, naming the field.
 */
export function guardInput(schema: unknown, data: unknown, part: InputPart): GuardResult {
  const root = isObject(schema) ? schema : {};
  const walker = new Walker(root, part);
  try {
    const value = walker.walk(isObject(schema) ? root : undefined, data, '', 0);
    return { ok: true, value };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, errors: [err.issue] };
    throw err;
  }
}
