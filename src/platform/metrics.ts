import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { passwordVerifications } from './auth/password.js';
import type { ReplicaReads } from './db/database.js';

/** Prometheus metrics at /metrics: process defaults and one latency histogram per route and outcome. */
export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new Counter({
    name: 'password_verifications_total',
    help: 'Password verifications by the kind and cost of the hash (an unknown login name is verified against a dummy hash of the current cost)',
    labelNames: ['cost'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [cost, count] of passwordVerifications) this.inc({ cost }, count);
    },
  });
  // The labelled series of each route, method and status, looked up once: prom-client hashes the
  // label object on every observe(labels, …), which showed in the profile of every request.
  const series = new Map<string, Histogram.Internal<'route' | 'method' | 'status'>>();
  app.addHook('onResponse', (req, reply, done) => {
    // Unknown paths share one label, so scanners cannot blow up the series count.
    const route = req.routeOptions.url ?? 'unmatched';
    const key = `${reply.statusCode} ${req.method} ${route}`;
    let child = series.get(key);
    if (!child) {
      child = duration.labels({ route, method: req.method, status: String(reply.statusCode) });
      series.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}

/**
 * The streaming replica (docs/adr/0101-reads-on-a-streaming-replica.md), read from the routing's own
 * counts when scraped: nothing is added to a query's path.
 */
export function registerReplicaMetrics(registry: Registry, replica: ReplicaReads): void {
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: 'How old the read replica may be (the age of the newest primary WAL position it has replayed); -1 while it does not answer',
    registers: [registry],
    collect() {
      this.set(replica.lag.lagMs === null ? -1 : replica.lag.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'db_replica_usable',
    help: '1 while replica reads go to the read replica; 0 while it lags over DATABASE_READ_MAX_LAG_MS or does not answer',
    registers: [registry],
    collect() {
      this.set(replica.lag.usable ? 1 : 0);
    },
  });
  new Counter({
    name: 'db_replica_route_reads_total',
    help: 'Reads of replica routes (pages, statistics, exports) by where they ran',
    labelNames: ['target'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [target, n] of Object.entries(replica.counts.reads)) this.inc({ target }, n);
    },
  });
  new Counter({
    name: 'db_replica_skips_total',
    help: 'Reads of replica routes sent to the primary, by reason: lag (over the bound), unreachable, own-write (the request wrote), recent-write (its session wrote within the bound)',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, n] of Object.entries(replica.counts.skips)) this.inc({ reason }, n);
    },
  });
}
