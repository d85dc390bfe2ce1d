import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { prepareDatabase } from '../../src/seed/prepare.js';
import { adminUrl } from '../helpers/global-setup.js';
import { TEST_TZ } from '../helpers/test-env.js';

const url = process.env.DATABASE_URL || null;
const SEED = { adminUsername: 'admin', adminPassword: 'Admin@Prepare1', openApp: null };

/** Fresh, empty databases: on PostgreSQL one new database opened by several pools; on PGlite one in memory. */
async function emptyDatabases(handles: number): Promise<{ databases: Database[]; drop: () => Promise<void> }> {
  if (!url) {
    const database = openDatabase({ databaseUrl: null, dataDir: '.test-cache', tz: TEST_TZ, inMemory: true });
    return { databases: Array(handles).fill(database), drop: () => database.close() };
  }
  const name = `hard_prep_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const databases = Array.from({ length: handles }, () =>
    openDatabase({ databaseUrl: adminUrl(url, name), dataDir: '.test-cache', tz: TEST_TZ, poolMax: 3 }),
  );
  return {
    databases,
    drop: async () => {
      for (const d of databases) await d.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

describe('preparing an empty database from several instances at once', () => {
  let dbs: Awaited<ReturnType<typeof emptyDatabases>>;
  beforeAll(async () => {
    dbs = await emptyDatabases(4);
  });
  afterAll(() => dbs?.drop());

  it('migrates and seeds once; every other start finds it done', async () => {
    const outcomes = await Promise.all(dbs.databases.map((d) => prepareDatabase(d.db, SEED)));
    const seeded = outcomes.filter((o) => o.regionsSeeded > 0);
    expect(seeded).toHaveLength(1);
    expect(outcomes.filter((o) => o.admin !== null)).toHaveLength(1);
    expect(outcomes.filter((o) => o.migrations.length > 0)).toHaveLength(1);
    const db = dbs.databases[0].db;
    const regions = await db
      .selectFrom('region')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(regions.n)).toBe(seeded[0].regionsSeeded);
    const admins = await db.selectFrom('admin_user').select('username').execute();
    expect(admins).toEqual([{ username: 'admin' }]);
    // and a later start changes nothing
    const again = await prepareDatabase(dbs.databases[1].db, SEED);
    expect(again).toEqual({ regionsSeeded: 0, admin: null, migrations: [] });
  });
});
