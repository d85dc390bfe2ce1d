import { ConfigError, loadConfig, type Config } from './config.js';

/** Process entry: configuration → database → reference data → store → app → listen; drains on SIGTERM. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // Wire dates are local times of the service zone; Date's local getters follow process.env.TZ.
  process.env.TZ = config.tz;

  // Imported only after the configuration passed, and in this order: the database starts (PGlite
  // compiles its WebAssembly, PostgreSQL connects) while the app's modules load and the app is built.
  const { openDatabase } = await import('./platform/db/database.js');
  const { prepareDatabase } = await import('./seed/prepare.js');
  const { CLOSE_WITHIN_MS, forcedExitAfterMs, settledWithin } = await import('./platform/shutdown.js');
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    tz: config.tz,
    poolMax: config.databasePoolMax,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    reportQueryTimeoutMs: config.databaseReportQueryTimeoutMs,
    idleInTransactionTimeoutMs: config.databaseIdleInTransactionTimeoutMs,
    ...(config.databaseRead ? { replica: config.databaseRead } : {}),
  });
  // An upgrade of the embedded database is backed up before its migrations run: a migration that
  // fails, or a version that must be rolled back, leaves the data of the version before restorable.
  let backedUp: string | null = null;
  const backupFirst =
    database.copyDataDir && config.backup.everyMs > 0
      ? async () => {
          const { takeBackup } = await import('./platform/backup.js');
          backedUp = await takeBackup(database, config.backup);
        }
      : undefined;
  // Unbounded: a migration may run long, and so may the wait for another instance's.
  const prepared = prepareDatabase(
    database.unbounded,
    {
      adminUsername: config.adminUsername,
      adminPassword: config.adminPassword,
      openApp:
        config.openAppKey && config.openAppSecret
          ? { appKey: config.openAppKey, appSecret: config.openAppSecret }
          : null,
    },
    backupFirst,
  );
  prepared.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  const { openStore } = await import('./platform/store/index.js');
  const { buildApp } = await import('./app.js');
  const store = await openStore(config.redisUrl, config.storePrefix);
  const lifecycle = { draining: false };
  const app = await buildApp({ config, database, store, lifecycle, databaseReady: prepared });
  await app.ready();
  const seeded = await prepared;
  let demoLines: string[] = [];
  if (config.demo) {
    const { seedDemoIfEmpty, describeDemoResult } = await import('./seed/demo/index.js');
    const demo = await seedDemoIfEmpty(database, { databaseUrl: config.databaseUrl, tz: config.tz });
    demoLines = describeDemoResult(demo, config.adminUsername);
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    lifecycle.draining = true;
    const force = setTimeout(() => process.exit(1), forcedExitAfterMs(config));
    force.unref();
    try {
      // Behind a load balancer: keep serving while /readyz fails, until it has stopped sending.
      if (config.shutdownDelayMs > 0) {
        app.log.info({ signal, delayMs: config.shutdownDelayMs }, 'not ready any more; closing after the delay');
        await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
      }
      app.log.info({ signal }, 'draining in-flight requests');
      // Answers sent while draining close their connections; a connection whose answer began before
      // (a long download) would still idle until its keep-alive timeout and hold the close that long.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 250);
      await app.close();
      clearInterval(sweep);
      // PGlite's close writes its data directory and is awaited whole; a network peer's is bounded.
      const [databaseClosed, storeClosed] = await Promise.all([
        database.kind === 'postgres'
          ? settledWithin(database.close(), CLOSE_WITHIN_MS)
          : database.close().then(() => true),
        settledWithin(store.close(), CLOSE_WITHIN_MS),
      ]);
      if (!databaseClosed || !storeClosed) {
        app.log.warn(
          {
            database: databaseClosed ? 'closed' : 'dropped',
            store: storeClosed ? 'closed' : 'dropped',
            waitedMs: CLOSE_WITHIN_MS,
          },
          'connections did not close in time (a silent peer); dropped at exit',
        );
      }
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = await app.listen({ port: config.port, host: config.host });
  const base = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
  const lines = [
    '',
    `  Tourism card service ready on ${base} (${database.kind}, ${store.kind} store)`,
    `  API docs:  ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
  ];
  if (backedUp)
    lines.push(
      `  Backed up the database before migrating it (${seeded.migrations.length} migration${seeded.migrations.length === 1 ? '' : 's'}): ${backedUp}`,
    );
  if (seeded.regionsSeeded) lines.push(`  Seeded ${seeded.regionsSeeded} regions.`);
  if (seeded.admin) {
    lines.push(
      `  Log in:    username "${seeded.admin.username}", password "${seeded.admin.password}"` +
        (seeded.admin.generated ? '  (generated now and shown only once; set ADMIN_PASSWORD to choose it)' : ''),
    );
  } else {
    lines.push(`  Log in:    username "${config.adminUsername}" with the password set at first start (ADMIN_PASSWORD)`);
  }
  lines.push(...demoLines);
  lines.push(
    '  Staff login needs a captcha: GET /manage-api/auth/getRandomCodeImg, then POST /manage-api/auth/login.',
    '',
  );
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
