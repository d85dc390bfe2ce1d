import { isDeepStrictEqual } from 'node:util';

type Json = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';
/** OpenAPI's rule for the keys of `components.schemas`. */
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema worth a name of its own: an object with fields (a scalar or a list stays inline). */
function isObjectShape(s: Json): boolean {
  const type = s.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || isObject(s.properties);
}

/**
 * Gathers the document's named schemas (`components.schemas`) from the route schemas: a TypeBox
 * object with a `title` becomes a component of that name wherever it appears, TypeBox's `$defs`
 * (recursive trees) become components of their own names, and a route's untitled request or answer
 * object is named after the operation. One name, one shape: a second, different shape under a taken
 * name fails the build, so the document never shows two things as one.
 */
export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};
  /** untitled top-level schemas already named, by identity: a shape shared by routes gets one name */
  private readonly named = new WeakMap<object, string>();

  /** A reference to `schema` as a component, named `fallbackName` unless it carries its own title. */
  component(schema: unknown, fallbackName: string): Json {
    if (!isObject(schema)) throw new Error(`${fallbackName}: not a schema`);
    const own = typeof schema.title === 'string' ? schema.title : this.named.get(schema);
    if (own) return this.inline(schema);
    if (!isObjectShape(schema)) return this.inline(schema);
    this.named.set(schema, fallbackName);
    return this.register(fallbackName, this.convertChildren(schema));
  }

  /** The schema in document form: named parts as references, the rest inline. */
  inline(schema: unknown): Json {
    if (!isObject(schema)) throw new Error('not a schema');
    return this.convert(schema);
  }

  private convert(s: Json): Json {
    if (isObject(s.$defs) && typeof s.$ref === 'string') {
      // TypeBox's recursive schema (Type.Cyclic): its definitions become components.
      for (const [name, def] of Object.entries(s.$defs)) {
        if (!isObject(def)) continue;
        const { $id: _id, ...rest } = def;
        this.register(name, this.convertChildren(rest));
      }
      return { $ref: REF_PREFIX + s.$ref };
    }
    const title = typeof s.title === 'string' ? s.title : this.named.get(s);
    if (title && isObjectShape(s)) {
      const nullable = Array.isArray(s.type) && s.type.includes('null');
      if (nullable) {
        // Opt(X) copies X with `type: ['object', 'null']`: the same component, or null.
        const type = (s.type as string[]).filter((t) => t !== 'null');
        return {
          anyOf: [
            this.register(title, this.convertChildren({ ...s, type: type.length === 1 ? type[0] : type })),
            { type: 'null' },
          ],
        };
      }
      return this.register(title, this.convertChildren(s));
    }
    return this.convertChildren(s);
  }

  private convertChildren(s: Json): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(s)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) out.$ref = REF_PREFIX + value;
      else if (key === '$id') continue;
      else if (key === 'properties' && isObject(value)) {
        out.properties = Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, isObject(v) ? this.convert(v) : v]),
        );
      } else if ((key === 'items' || key === 'not' || key === 'additionalProperties') && isObject(value))
        out[key] = this.convert(value);
      else if (
        (key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') &&
        Array.isArray(value)
      ) {
        out[key] = value.map((v) => (isObject(v) ? this.convert(v) : v));
      } else out[key] = value;
    }
    return out;
  }

  private register(name: string, shape: Json): Json {
    if (!COMPONENT_NAME.test(name)) throw new Error(`schema name "${name}" is not a valid component name`);
    const { title: _title, ...body } = shape;
    const stored = { title: name, ...body };
    const had = this.schemas[name];
    if (had && !isDeepStrictEqual(had, stored)) {
      throw new Error(`two different schemas are both named ${name}: give one another title`);
    }
    this.schemas[name] = stored;
    return { $ref: REF_PREFIX + name };
  }
}
