import type { FastifyInstance } from 'fastify';
import type { Database } from './db/database.js';
import type { Store } from './store/store.js';

/** Liveness answers while the process runs; readiness only while the database and store answer. */
export function registerHealth(app: FastifyInstance, deps: { database: Database; store: Store }): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ errcode: 0, errmsg: 'success', data: { status: 'ok' } }));
  app.get('/readyz', { schema: { hide: true } }, async (req, reply) => {
    try {
      await deps.database.ping();
      await deps.store.ping();
      return { errcode: 0, errmsg: 'success', data: { status: 'ready', database: deps.database.kind, store: deps.store.kind } };
    } catch (err) {
      req.log.warn({ err }, 'not ready');
      reply.status(503);
      return { errcode: 503, errmsg: 'database or store unreachable' };
    }
  });
}
