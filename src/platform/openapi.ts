import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/** One schema per shape drives validation and this document (OpenAPI 3.1 at /openapi.json, UI at /docs). */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tourism card operations service',
        version: '1.0.0',
        description:
          'Every answer is the envelope {errcode, errmsg, data}; errcode 0 is success. Prefixes: /app-api (verifier app), ' +
          '/manage-api (staff), /mp-api (members), /open-api (signed open calls). Log in with POST /manage-api/auth/login ' +
          '(captcha from GET /manage-api/auth/getRandomCodeImg) and send Authorization: Bearer <accessToken>. ' +
          'Request bodies are JSON or application/x-www-form-urlencoded (multipart for uploads). An operation listed with ' +
          'both POST and GET answers any method: GET reads its fields from the query string, the others from the body, ' +
          'with the query string filling the fields the body lacks.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'accessToken from a login; the Bearer prefix is optional' },
          openSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Sign',
            description: 'HMAC-SHA256 of METHOD\\nPATH\\nX-Timestamp\\nX-Nonce\\nsha256(body) with the app secret; send X-App-Key, X-Timestamp, X-Nonce too',
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  // The address DESIGN.md §3 and the start-up banner give (the UI's own copy stays at /docs/json).
  app.get('/openapi.json', { schema: { hide: true } }, async () => openApiDocument(app));
}

export function openApiDocument(app: FastifyInstance): unknown {
  return (app as unknown as { swagger(): unknown }).swagger();
}
