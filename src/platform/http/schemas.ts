import { Type, type Static, type TSchema, type TString } from 'typebox';
import { EMPTY_LIST_KEYWORD } from './input-guard.js';

/** Shapes shared by every module: the envelope, ids, paging, nullable fields, wire dates. */

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const SIMPLE_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'array', 'object']);

/**
 * A nullable input field as `type: [T, "null"]` rather than `anyOf`: with Fastify's type coercion,
 * ajv coerces an explicit null to 0 or "" inside the first `anyOf` branch, so `{"parentId": null}`
 * filtered on parentId 0. A type list matches null as it is. Schemas without a simple type keep anyOf.
 */
function nullableInput<T extends TSchema>(schema: T): TSchema {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string' || !SIMPLE_TYPES.has(type)) return Nullable(schema);
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
}

/** Optional on input, and null accepted too (Java clients send explicit nulls). */
export const Opt = <T extends TSchema>(schema: T) =>
  Type.Optional(nullableInput(schema) as ReturnType<typeof Nullable<T>>);

export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const IdRequest = Type.Object({ id: Id }, { title: 'IdRequest' });

export const DateTimeText = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}(:\\d{2})?)?$',
  description: 'YYYY-MM-DD HH:mm:ss in the service time zone (a bare YYYY-MM-DD is accepted on input)',
  examples: ['2026-11-01 09:30:00'],
});

/** Date[] ranges: a start and an end. An empty list is a Java client's way of leaving it unset (absent). */
export const DateRange = Type.Array(DateTimeText, { minItems: 2, maxItems: 2 });

/**
 * A range that is the subject of a figure rather than a filter (the statistics' activation range and
 * date pair): an empty list is refused, naming the field, rather than read as absent (input-guard.ts).
 */
export const DatePair = Type.Array(DateTimeText, {
  minItems: 2,
  maxItems: 2,
  [EMPTY_LIST_KEYWORD]: 'refused',
  description: 'a start and an end date; [] is refused (leave the field out instead)',
});

export { PAGE_SIZE_MAX } from './paging.js';
// Any integer is read (pageWindow clamps it); null is accepted and means the default, as an absent field does.
export const PageFields = {
  pageNum: Opt(Type.Integer({ default: 1, description: 'from 1; 0 or less reads as 1' })),
  pageSize: Opt(
    Type.Integer({ default: 10, description: '1–200; above 200 reads as 200, 0 or less as the default 10' }),
  ),
};

/** PageInfo<T> (spec A 2.1); named after its item (`SalesResponsePage`) where the item has a name. */
export const PageInfo = <T extends TSchema>(item: T) => {
  const title = (item as { title?: unknown }).title;
  return Type.Object(
    { list: Type.Array(item), total: Type.Integer() },
    typeof title === 'string' ? { title: `${title}Page` } : {},
  );
};

export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ errcode: Type.Integer(), errmsg: Type.String(), data });

export const VoidEnvelope = Type.Object({ errcode: Type.Integer(), errmsg: Type.String() }, { title: 'VoidEnvelope' });

/** A mainland mobile number (the spec's `^1[3-9]\d{9}$`). */
export const MobilePhone = Type.String({
  pattern: '^1[3-9]\\d{9}$',
  description: 'a mainland mobile number, 11 digits starting with 1',
  examples: ['13800138000'],
});

/** A contact telephone: mobile or landline with area code and extension. */
export const PhoneText = Type.String({
  pattern: '^\\+?[0-9][0-9 -]{4,18}[0-9]$',
  description: 'a telephone number (digits, spaces, hyphens, an optional leading +)',
  examples: ['0571-88886666'],
});

/** Filters of list requests: several ids, and free text matched against the module's text columns. */
export const IdList = Type.Array(Id, { maxItems: 1000 });
export const Keywords = Type.String({ maxLength: 64, description: 'found case-insensitively in the main text fields' });

/** Unpaged list operations answer at most this many rows (the page operations have no such cap). */
export const LIST_MAX_ROWS = 5000;

/**
 * A patterned text field that also takes "" (on update: clear the stored value). Kept a plain string
 * schema rather than a union, so a bad value still gets the field's own message.
 */
export function orEmpty(schema: TString): TString {
  const { pattern, description } = schema as TString & { pattern?: string; description?: string };
  return Type.String({
    ...schema,
    ...(pattern ? { pattern: `^$|${pattern}` } : {}),
    description: `${description ?? ''} ("" clears it)`.trim(),
  });
}

/** An enumeration's code in an answer: spec A 2.2, "codes are strings in payloads" ("3", not 3). */
export const CodeText = (description: string) => Nullable(Type.String({ description }));
/** The stored integer code as it travels (CodeText). */
export const codeText = (code: number | null | undefined): string | null => (code == null ? null : String(code));
