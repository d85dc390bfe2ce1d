import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminUrl } from '../helpers/global-setup.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';
import { generateDemoData } from '../../src/seed/demo/index.js';
import { parseDay } from '../../src/seed/demo/calendar.js';

/**
 * The demo's merchants, staff, roles, verifiers, card models, rules and prices are written through the
 * administration modules' repositories: what those write besides the row (a card model's price
 * history) is there too, and the ids are the ones the generator planned.
 */
let d: TestDb;

beforeAll(async () => {
  d = await openTestDatabase();
  let databaseUrl: string | null = null;
  if (process.env.DATABASE_URL) {
    const r = await sql<{ name: string }>`select current_database() as name`.execute(d.db);
    databaseUrl = adminUrl(process.env.DATABASE_URL, r.rows[0].name);
  }
  const result = await generateDemoData(d.database, { scale: 500, seed: 7, now: parseDay('2026-06-30')!, databaseUrl });
  expect(result.status).toBe('created');
});
afterAll(() => d?.close());

describe('demo records through the repositories', () => {
  it('gives every card model its price history, covering every card sold', async () => {
    const rows = await sql<{
      id: number;
      price: number;
      history: number;
      current_price: number | null;
      valid_from: Date;
      first_sale: Date | null;
    }>`
      select m.id, m.price,
        (select count(*)::int from card_model_price_history h where h.card_model_id = m.id) as history,
        (select h.price from card_model_price_history h where h.card_model_id = m.id and h.valid_to is null) as current_price,
        (select min(h.valid_from) from card_model_price_history h where h.card_model_id = m.id) as valid_from,
        (select min(c.active_time) from card c where c.card_model_id = m.id) as first_sale
      from card_model m order by m.id`.execute(d.db);
    expect(rows.rows).toHaveLength(3);
    for (const r of rows.rows) {
      expect(r).toMatchObject({ history: 1, current_price: r.price });
      expect(new Date(r.valid_from).getTime()).toBeLessThanOrEqual(new Date(r.first_sale!).getTime());
    }
  });

  it('keeps the planned ids and relations, and the roles the demo staff hold', async () => {
    const checkers = await d.db.selectFrom('checker').select(['id', 'mobile', 'status']).orderBy('id').execute();
    expect(checkers[0]).toMatchObject({ mobile: '13800000001', status: 1 });
    const orphanChecks = await sql<{ n: number }>`
      select count(*)::int as n from card_check c where not exists (
        select 1 from checker_relation r where r.checker_id = c.checker_id and r.sku_id = c.sku_id and r.entrance_id = c.entrance_id)`.execute(
      d.db,
    );
    expect(orphanChecks.rows[0].n).toBe(0);
    const roles = await d.db
      .selectFrom('role')
      .select(['code', 'permissions', 'merchant_id'])
      .where('code', 'in', ['merchant_admin', 'shop_admin'])
      .orderBy('code')
      .execute();
    expect(roles.map((r) => [r.code, r.merchant_id])).toEqual([
      ['merchant_admin', null],
      ['shop_admin', null],
    ]);
    expect(roles[0].permissions).toEqual(expect.arrayContaining(['staff:*', 'role:*', 'checker:*']));
    const staff = await d.db
      .selectFrom('admin_user as u')
      .innerJoin('user_role as ur', 'ur.user_id', 'u.id')
      .innerJoin('role as r', 'r.id', 'ur.role_id')
      .select(['u.username', 'r.code'])
      .where('u.username', 'in', ['merchant01', 'shop01', 'platform01'])
      .orderBy('u.username')
      .execute();
    expect(staff).toEqual([
      { username: 'merchant01', code: 'merchant_admin' },
      { username: 'platform01', code: 'super_admin' },
      { username: 'shop01', code: 'shop_admin' },
    ]);
  });
});
