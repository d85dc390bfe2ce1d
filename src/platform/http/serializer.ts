import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type BuildSerializer = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>['buildSerializer'];

/** This process's compiled response serializers: by shared schemas and options, then by schema. */
const compiled = new Map<string, Map<string, SerializerSelector.Serializer>>();

/**
 * Fastify's own serializer compiler (fast-json-stringify), compiling each distinct response schema once
 * per process: a second app built in the same process (test files share workers, ADR 0092) reuses the
 * first's functions rather than compiling every route's again. A serializer depends on its schema, the
 * shared schemas it may reference and the options alone, which together are its key.
 */
export function sharedSerializerFactory(): BuildSerializer {
  const build = SerializerSelector();
  const factory: SerializerSelector.SerializerFactory = (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const context = JSON.stringify([externalSchemas ?? null, options ?? null]);
    let bySchema = compiled.get(context);
    if (!bySchema) compiled.set(context, (bySchema = new Map()));
    const cache = bySchema;
    return (route) => {
      const key = JSON.stringify(route.schema ?? null);
      let serializer = cache.get(key);
      if (!serializer) cache.set(key, (serializer = compile(route)));
      return serializer;
    };
  };
  return factory as unknown as BuildSerializer;
}
