import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { RouteSpec } from '../http/routes.js';
import { buildOpenApiDocument } from './document.js';

/**
 * The OpenAPI 3.1 document at /openapi.json and the interactive page at /docs. The document is built
 * from the route table (platform/openapi/document.ts), the same schemas that validate requests and
 * serialise answers; @fastify/swagger serves it as given ("static" mode) for the UI.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  routes: RouteSpec[],
  opts: { serverUrl: string; version: string },
): Promise<void> {
  const document = buildOpenApiDocument(routes, opts);
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  // The address the start-up banner gives (the UI's own copy stays at /docs/json).
  app.get('/openapi.json', { schema: { hide: true } }, async () => document);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- @fastify/swagger types the document loosely
export function openApiDocument(app: FastifyInstance): any {
  return (app as unknown as { swagger(): unknown }).swagger();
}
