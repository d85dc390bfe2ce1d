import { sample } from 'openapi-sampler';

/**
 * A request example drawn from the schema itself (its `examples`, defaults, enumerations and bounds),
 * so it cannot drift from it; test/platform/openapi-document.test.ts validates every example against
 * its operation's schema. Patterned text needs an `examples` entry on its schema to sample right.
 */
export function requestExample(schema: unknown): unknown {
  return sample(JSON.parse(JSON.stringify(schema)), { skipReadOnly: true, quiet: true });
}
