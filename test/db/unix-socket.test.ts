import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { TEST_TZ } from '../helpers/test-env.js';

const url = process.env.DATABASE_URL || null;
const SOCKET_DIR = '/var/run/postgresql';

/**
 * docs/operations.md tells a deployment with PostgreSQL on its host to reach it through the Unix socket
 * with `?host=<directory>` in DATABASE_URL: the configuration accepts it and the pool connects there.
 */
describe.skipIf(!url || !existsSync(SOCKET_DIR))('DATABASE_URL naming a Unix socket directory', () => {
  let database: Database | null = null;
  afterAll(() => database?.close());

  it('connects through the socket, not TCP', async () => {
    const tcp = new URL(url!);
    const socketUrl = `postgres://${tcp.username}${tcp.password ? `:${tcp.password}` : ''}@localhost${tcp.pathname}?host=${SOCKET_DIR}`;
    const config = loadConfig({ DATABASE_URL: socketUrl, TZ: TEST_TZ });
    database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: '.test-cache', tz: TEST_TZ, poolMax: 1 });
    const r = await sql<{
      db: string;
      addr: string | null;
    }>`select current_database() as db, inet_server_addr()::text as addr`.execute(database.db);
    expect(r.rows[0].db).toBe(tcp.pathname.slice(1));
    // A Unix-socket session has no server address.
    expect(r.rows[0].addr).toBeNull();
  });
});
