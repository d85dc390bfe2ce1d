import type { FastifyInstance } from 'fastify';
import type { Database } from './db/database.js';
import type { Store } from './store/store.js';

/** Shared with main: once draining, readiness fails so a load balancer stops sending new requests. */
export interface Lifecycle {
  draining: boolean;
}

/** Liveness answers while the process runs; readiness only while the database and store answer. */
export function registerHealth(
  app: FastifyInstance,
  deps: { database: Database; store: Store; lifecycle: Lifecycle },
): void {
  // Once draining, every answer asks its client to close the connection: a keep-alive connection
  // would otherwise stay open after its last answer and hold the shutdown until its keep-alive
  // timeout (65 s), and the client opens its next one to another instance. (A callback hook: it runs
  // on every answer and waits for nothing.)
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (deps.lifecycle.draining) reply.header('connection', 'close');
    done(null, payload);
  });
  app.get('/healthz', { schema: { hide: true } }, async () => ({
    errcode: 0,
    errmsg: 'success',
    data: { status: 'ok' },
  }));
  app.get('/readyz', { schema: { hide: true } }, async (req, reply) => {
    if (deps.lifecycle.draining) {
      reply.status(503);
      return { errcode: 503, errmsg: 'shutting down' };
    }
    try {
      await deps.database.ping();
      await deps.store.ping();
      return {
        errcode: 0,
        errmsg: 'success',
        data: { status: 'ready', database: deps.database.kind, store: deps.store.kind },
      };
    } catch (err) {
      req.log.warn({ err }, 'not ready');
      reply.status(503);
      return { errcode: 503, errmsg: 'database or store unreachable' };
    }
  });
}
