import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

// docs/architecture.md §3: kysely-pglite let a rolled-back write persist when transactions overlapped.
describe('overlapping transactions', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDatabase();
    await sql`create table tx_probe (id int primary key, v text)`.execute(t.db);
  });
  afterAll(() => t.close());

  it('keep only the committed write when one of two overlapping transactions rolls back', async () => {
    let releaseA!: () => void;
    const aMayFinish = new Promise<void>((r) => (releaseA = r));
    const a = t.db.transaction().execute(async (trx) => {
      await sql`insert into tx_probe values (1, 'rolled back')`.execute(trx);
      await aMayFinish;
      throw new Error('roll back A');
    });
    const b = t.db.transaction().execute(async (trx) => {
      await sql`insert into tx_probe values (2, 'committed')`.execute(trx);
    });
    // Let B queue behind A (PGlite) or run beside it (PostgreSQL), then end A.
    await new Promise((r) => setTimeout(r, 50));
    releaseA();
    await expect(a).rejects.toThrow('roll back A');
    await b;
    const rows = await sql<{ id: number; v: string }>`select id, v from tx_probe order by id`.execute(t.db);
    expect(rows.rows).toEqual([{ id: 2, v: 'committed' }]);
  });
});
