import { Type, type Static, type TSchema } from 'typebox';

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
export const Opt = <T extends TSchema>(schema: T) => Type.Optional(nullableInput(schema) as ReturnType<typeof Nullable<T>>);

export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const IdRequest = Type.Object({ id: Id });

export const DateTimeText = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}(:\\d{2})?)?$',
  description: 'YYYY-MM-DD HH:mm:ss in the service time zone (a bare YYYY-MM-DD is accepted on input)',
});

/** Date[] ranges: a start and an end. */
export const DateRange = Type.Array(DateTimeText, { minItems: 2, maxItems: 2 });

export const PAGE_SIZE_MAX = 200;
// null is accepted and means the default (pageWindow), as an absent field does.
export const PageFields = {
  pageNum: Opt(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  pageSize: Opt(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: 10 })),
};

export const PageInfo = <T extends TSchema>(item: T) =>
  Type.Object({ list: Type.Array(item), total: Type.Integer() });

export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ errcode: Type.Integer(), errmsg: Type.String(), data });

export const VoidEnvelope = Type.Object({ errcode: Type.Integer(), errmsg: Type.String() });
