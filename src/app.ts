import { sharedSerializerFactory } from './platform/http/serializer.js';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { requestForLog } from './platform/http/request-log.js';
import cookie from '@fastify/cookie';
import type { Config } from './config.js';
import { SharedCache } from './platform/cache.js';
import type { Database } from './platform/db/database.js';
import type { Store } from './platform/store/store.js';
import path from 'node:path';
import { TokenService } from './platform/auth/tokens.js';
import { LocalSessions } from './platform/auth/local-sessions.js';
import { SessionValues } from './platform/auth/session-values.js';
import { Authenticator } from './platform/http/authenticate.js';
import { registerJsonBody } from './platform/http/body.js';
import { registerEarlyAnswerLinger } from './platform/http/early-answer.js';
import { registerErrorHandling } from './platform/http/error-handler.js';
import { registerRoutes } from './platform/http/routes.js';
import { registerPages } from './platform/http/pages.js';
import { guardedValidatorFactory } from './platform/http/validator.js';
import { EMPTY_LIST_KEYWORD } from './platform/http/input-guard.js';
import { recordOperation } from './platform/oplog/oplog.js';
import { isPgTimeout } from './platform/db/pg-errors.js';
import { registerMetrics, registerReplicaMetrics } from './platform/metrics.js';
import { storeSessionWrites } from './platform/db/session-writes.js';
import { registerOpenApi } from './platform/openapi/register.js';
import { registerHealth, type Lifecycle } from './platform/health.js';
import { createModules, MODULES } from './modules/index.js';
import type { ModuleDefinition } from './platform/module.js';
import { createPlatformServices, type PlatformServices } from './platform/services.js';
import { runAtStart, scheduleJobs, type BackgroundJob } from './platform/jobs.js';
import { logPartitionJobs } from './platform/oplog/log-partitions.js';
import { embeddedBackupJob } from './platform/backup.js';
import { PermissionCatalog } from './platform/auth/permission-catalog.js';
import type { Deps } from './platform/deps.js';

export interface AppOptions {
  config: Config;
  database: Database;
  store: Store;
  logger?: FastifyServerOptions['logger'];
  lifecycle?: Lifecycle;
  /** the business modules to serve (tests add probe modules); every module by default */
  modules?: readonly ModuleDefinition[];
  /** Replaces SMS or face services (tests that record messages or simulate an outage). */
  services?: Partial<PlatformServices>;
  /** Settles when the database is migrated (main prepares it while the app is built); requests wait for it. */
  databaseReady?: Promise<unknown>;
}

/** Builds the whole service from its configuration and open connections (main, tests and benches). */
/**
 * On every answer, errors and files included. No Content-Security-Policy: the API answers JSON and
 * files, and the Swagger UI at /docs needs its inline scripts.
 */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** Logger options with the request serializer that keeps capabilities out of logged URLs. */
function withRequestSerializer(logger: NonNullable<FastifyServerOptions['logger']>): FastifyServerOptions['logger'] {
  if (typeof logger !== 'object') return logger;
  return { ...logger, serializers: { req: requestForLog, ...logger.serializers } };
}

/** The version of the API contract /openapi.json describes. */
const API_VERSION = '1.0.0';

/** Where clients reach the service: the configured public base, else the address it listens on. */
function publicUrl(config: Config): string {
  if (config.fileBaseUrl) return config.fileBaseUrl;
  const host =
    config.host === '0.0.0.0' || config.host === '::'
      ? '127.0.0.1'
      : config.host.includes(':')
        ? `[${config.host}]`
        : config.host;
  return `http://${host}:${config.port}`;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config, database, store } = opts;
  const db = database.db;
  const app = Fastify({
    logger: withRequestSerializer(opts.logger ?? { level: config.logLevel }),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // x-empty-list: an annotation the input guard reads (input-guard.ts), not a rule of ajv's.
    ajv: { customOptions: { verbose: true, coerceTypes: false, keywords: [EMPTY_LIST_KEYWORD] } },
    schemaController: {
      compilersFactory: { buildValidator: guardedValidatorFactory(), buildSerializer: sharedSerializerFactory() },
    },
    requestIdHeader: 'x-request-id',
    return503OnClosing: true,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // Node checks the header and request deadlines every 30 s by default: a trickling client would
    // hold its socket up to that much longer than the limit says.
    http: {
      headersTimeout: Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs),
    },
  });

  const cache = await SharedCache.create(store);
  const localSessions =
    config.sessionLocalTtlS > 0
      ? await LocalSessions.create(store, { ttlMs: config.sessionLocalTtlS * 1000, max: 10_000 })
      : null;
  const tokens = new TokenService(
    db,
    store,
    { accessS: config.accessTokenTtlS, refreshS: config.refreshTokenTtlS },
    localSessions,
  );
  const authenticator = new Authenticator(db, store, tokens);
  const sessionValues = new SessionValues(store, config.refreshTokenTtlS);

  registerJsonBody(app);
  registerEarlyAnswerLinger(app);
  await app.register(cookie);
  app.decorateRequest('ctx', null as never);
  app.decorateRequest('handlerStarted', false);
  app.decorateRequest('uploadedFiles', null);
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    req.ctx = {
      account: null,
      tokenHash: null,
      sessionId: null,
      channel: 'manage',
      ip: req.ip,
      userAgent: req.headers['user-agent'] ?? '',
      method: req.method,
      path: req.url.split('?')[0],
      startedAt: Date.now(),
      operation: null,
      operationLog: 'none',
    };
    // Handled from the next turn of the event loop: every request read in one poll phase is parsed
    // before any is answered, and the answers leave in a burst. Run through from read to write (as
    // when nothing on the way waits on the network: the in-process store, the cache), each answer's
    // write sat between the reads of the others and the service spent twice the CPU per answer
    // (cached queryRegionPage on PGlite: 92–118 → 46–58 µs, 8.5–12.2k → 16.2–22.0k req/s); neutral
    // on Redis, whose round trip already yields (docs/adr/0018-requests-handled-from-the-next-turn-of-the-event-loop.md).
    setImmediate(done);
  });
  registerErrorHandling(app, async (req, answer, err) => {
    const ctx = req.ctx;
    // A database that just let a statement or a connection time out would hold the failure's log row
    // as long again (measured: the answer took twice the bound); a refused one fails at once.
    if (isPgTimeout(err)) return;
    if (ctx && req.handlerStarted && ctx.operation && ctx.operationLog !== 'written') {
      // The record the request aimed at, when it named one (IdRequest and update requests).
      const target = (req.body as { id?: unknown } | undefined)?.id;
      const bizId = typeof target === 'number' || typeof target === 'string' ? target : null;
      await recordOperation(db, ctx, bizId, { success: false, errcode: answer.errcode });
    }
  });
  const metrics = registerMetrics(app);
  const replica = database.replica;
  if (replica) {
    registerReplicaMetrics(metrics, replica);
    replica.lag.listen((state, lagMs) => app.log.warn({ state, lagMs }, 'read replica state changed'));
  }
  registerHealth(app, { database, store, lifecycle: opts.lifecycle ?? { draining: false } });

  const services = await createPlatformServices({ config, db, store, logger: app.log }, opts.services);
  app.addHook('onClose', () => services.storage.close());
  const modules = opts.modules ?? MODULES;
  const deps: Deps = {
    config,
    database,
    db,
    store,
    cache,
    tokens,
    sessionValues,
    ...services,
    permissions: new PermissionCatalog(),
  };
  const routes = createModules(deps, modules);
  deps.permissions.register(routes);
  await registerOpenApi(app, routes, { serverUrl: publicUrl(config), version: API_VERSION });
  const purgeTokens: BackgroundJob = {
    name: 'purge expired tokens',
    everyMs: 60 * 60 * 1000,
    run: async () => void (await tokens.purgeExpired()),
  };
  const backup = embeddedBackupJob(database, config.backup, (file) =>
    app.log.info({ file }, 'embedded database backed up'),
  );
  const jobs = [
    purgeTokens,
    ...(backup ? [backup] : []),
    ...logPartitionJobs(db, config),
    ...modules.flatMap((m) => m.jobs?.(deps) ?? []),
  ];
  // Partitions of the current months exist before the first request is served, on the migrated
  // schema (docs/adr/0100-history-tables-partitioned-by-month.md). Not an onReady hook: that is bound
  // by Fastify's plugin timeout, and main readies the app while the database is still migrating.
  // A database that failed to prepare fails main's start; nothing to run then.
  let starting: Promise<void> | null = Promise.resolve(opts.databaseReady)
    .then(
      () => runAtStart(app, jobs),
      () => {},
    )
    .finally(() => {
      starting = null;
    });
  app.addHook('onRequest', (_req, _reply, done) => {
    if (starting === null) return done();
    starting.then(() => done(), done);
  });
  app.addHook('onClose', async () => {
    await starting;
  });
  scheduleJobs(app, jobs, metrics);
  registerPages(
    app,
    modules.flatMap((m) => m.pages?.(deps) ?? []),
  );
  // Before Fastify waits for open connections: a module's long-lived streams end so the close can finish.
  for (const m of modules) {
    const preClose = m.preClose;
    if (preClose) app.addHook('preClose', async () => preClose(deps));
  }
  await registerRoutes(app, routes, {
    db,
    authenticator,
    sessionWrites: replica ? storeSessionWrites(store, replica.sessionWritesMs) : null,
    uploads: {
      tempDir: path.join(config.dataDir, 'tmp'),
      limits: {
        maxFileBytes: config.uploadMaxBytes,
        maxFiles: config.uploadMaxFiles,
        maxFields: 50,
        maxFieldBytes: 64 * 1024,
      },
    },
  });
  return app;
}
