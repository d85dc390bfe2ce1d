import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import type { Config } from './config.js';
import { SharedCache } from './platform/cache.js';
import type { Database } from './platform/db/database.js';
import type { Store } from './platform/store/store.js';
import { TokenService } from './platform/auth/tokens.js';
import { Authenticator } from './platform/http/authenticate.js';
import { registerJsonBody } from './platform/http/body.js';
import { registerErrorHandling } from './platform/http/error-handler.js';
import { registerRoutes } from './platform/http/routes.js';
import { recordOperation } from './platform/oplog/oplog.js';
import { registerMetrics } from './platform/metrics.js';
import { registerOpenApi } from './platform/openapi.js';
import { registerHealth, type Lifecycle } from './platform/health.js';
import { createModules } from './modules/index.js';

export interface AppOptions {
  config: Config;
  database: Database;
  store: Store;
  logger?: FastifyServerOptions['logger'];
  lifecycle?: Lifecycle;
}

/** Builds the whole service from its configuration and open connections (main, tests and benches). */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config, database, store } = opts;
  const db = database.db;
  const app = Fastify({
    logger: opts.logger ?? { level: config.logLevel },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { verbose: true } },
    requestIdHeader: 'x-request-id',
    return503OnClosing: true,
  });

  const cache = await SharedCache.create(store);
  const tokens = new TokenService(db, store, { accessS: config.accessTokenTtlS, refreshS: config.refreshTokenTtlS });
  const authenticator = new Authenticator(db, store, tokens);

  registerJsonBody(app);
  await app.register(cookie);
  app.decorateRequest('ctx', null as never);
  app.decorateRequest('handlerStarted', false);
  app.addHook('onRequest', async (req) => {
    req.ctx = {
      account: null,
      tokenHash: null,
      channel: 'manage',
      ip: req.ip,
      userAgent: req.headers['user-agent'] ?? '',
      method: req.method,
      path: req.url.split('?')[0],
      startedAt: Date.now(),
      operation: null,
      operationLog: 'none',
    };
  });
  registerErrorHandling(app, async (req, answer) => {
    const ctx = req.ctx;
    if (ctx && req.handlerStarted && ctx.operation && ctx.operationLog !== 'written') {
      await recordOperation(db, ctx, null, { success: false, errcode: answer.errcode });
    }
  });
  registerMetrics(app);
  await registerOpenApi(app);
  registerHealth(app, { database, store, lifecycle: opts.lifecycle ?? { draining: false } });

  const purge = setInterval(() => {
    tokens.purgeExpired().catch((err: unknown) => app.log.warn({ err }, 'could not purge expired tokens'));
  }, 60 * 60 * 1000);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));

  const routes = createModules({ config, database, db, store, cache, tokens });
  registerRoutes(app, routes, { db, authenticator });
  return app;
}
