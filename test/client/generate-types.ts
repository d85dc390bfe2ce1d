import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** Where the generated client types live (committed, so `npm run typecheck` checks the client test against them). */
export const CLIENT_TYPES_FILE = 'test/client/openapi-types.ts';

/**
 * The TypeScript types openapi-typescript generates from the document: what an integrator's client
 * is built on. test/client/generated-client.test.ts checks the committed file is this.
 */
export async function generateClientTypes(document: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as never, {
    alphabetize: true,
    exportType: true,
    defaultNonNullable: false,
  });
  return COMMENT_HEADER + '// Regenerate with: npm run openapi:types\n\n' + astToString(ast);
}
