import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { isUniqueViolation } from '../../src/platform/db/pg-errors.js';

// The embedded database on its own thread (pglite-thread.ts): what its callers relied on when it ran
// on theirs — one transaction at a time, errors with their fields, values as they were — still holds.
// The embedded database's own machinery: the PGlite suite runs it; the PostgreSQL + Redis suite would
// only run it again.
describe.skipIf(process.env.DATABASE_URL)('PGlite on a thread of its own', () => {
  let database: Database;
  beforeAll(async () => {
    database = openDatabase({ databaseUrl: null, dataDir: '.test-cache', tz: 'Asia/Shanghai', inMemory: true });
    await sql`create table t (id int primary key, note text, at timestamptz, day date, big bigint, raw bytea)`.execute(
      database.db,
    );
  });
  afterAll(async () => {
    await database.close();
  });

  it('holds statements of other callers while a transaction is open, and shows them its rows only after the commit', async () => {
    const { db } = database;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const insertedYet = new Promise<void>((r) => (inserted = r));
    const trx = db.transaction().execute(async (t) => {
      await sql`insert into t (id, note) values (1, 'in flight')`.execute(t);
      inserted();
      await held;
    });
    await insertedYet;
    let seen: number | null = null;
    const outside = sql<{ n: number }>`select count(*)::int as n from t where id = 1`
      .execute(db)
      .then((r) => (seen = r.rows[0].n));
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toBeNull(); // waiting for the transaction, not reading inside it
    release();
    await trx;
    await outside;
    expect(seen).toBe(1);
  });

  it('undoes a transaction whose work failed, and answers the error with its code and constraint', async () => {
    const { db } = database;
    const failed = await db
      .transaction()
      .execute(async (t) => {
        await sql`insert into t (id, note) values (2, 'rolled back')`.execute(t);
        await sql`insert into t (id, note) values (1, 'a second id 1')`.execute(t);
      })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(failed, 't_pkey')).toBe(true);
    expect((failed as Error).message).toMatch(/duplicate key/);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from t where id = 2`.execute(db);
    expect(rows[0].n).toBe(0);
  });

  it('passes values both ways as the request thread had them', async () => {
    const at = new Date('2026-11-26T10:00:00.123Z');
    await sql`insert into t (id, note, at, day, big, raw) values (3, ${'五'}, ${at}, ${'2026-02-28'}, ${2 ** 40}, ${Buffer.from([0, 1, 255])})`.execute(
      database.db,
    );
    const { rows } = await sql<{
      note: string;
      at: Date;
      day: string;
      big: number;
      raw: Uint8Array;
    }>`select note, at, day, big, raw from t where id = 3`.execute(database.db);
    expect(rows[0].note).toBe('五');
    expect(rows[0].at).toEqual(at);
    expect(rows[0].day).toBe('2026-02-28'); // a date stays text
    expect(rows[0].big).toBe(2 ** 40); // int8 as a number
    expect([...rows[0].raw]).toEqual([0, 1, 255]);
  });

  it('runs many statements sent at once, each with its own answer', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => sql<{ v: number }>`select ${i}::int as v`.execute(database.db)),
    );
    expect(answers.map((a) => a.rows[0].v)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('starts from a dump of another database and keeps a data directory across a restart', async () => {
    const dump = await database.dump!();
    const copy = openDatabase({
      databaseUrl: null,
      dataDir: '.test-cache',
      tz: 'Asia/Shanghai',
      inMemory: true,
      loadDataDir: dump,
    });
    try {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from t`.execute(copy.db);
      expect(rows[0].n).toBe(2);
    } finally {
      await copy.close();
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'tc-thread-'));
    try {
      const first = openDatabase({ databaseUrl: null, dataDir: dir, tz: 'Asia/Shanghai' });
      await sql`create table kept (v int)`.execute(first.db);
      await sql`insert into kept values (7)`.execute(first.db);
      await first.close();
      const second = openDatabase({ databaseUrl: null, dataDir: dir, tz: 'Asia/Shanghai' });
      try {
        const { rows } = await sql<{ v: number }>`select v from kept`.execute(second.db);
        expect(rows).toEqual([{ v: 7 }]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses statements once closed, with a message that says so', async () => {
    const other = openDatabase({ databaseUrl: null, dataDir: '.test-cache', tz: 'Asia/Shanghai', inMemory: true });
    await sql`select 1`.execute(other.db);
    await other.close();
    await expect(sql`select 1`.execute(other.db)).rejects.toThrow(/destroyed|exited/);
  });
});
