import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';
import { adminUrl } from '../helpers/global-setup.js';
import {
  generateDemoData,
  DEMO_MEMBER_OPEN_ID,
  DEMO_PASSWORD,
  historyMonths,
  type DemoOptions,
  type DemoResult,
} from '../../src/seed/demo/index.js';
import { parseDay } from '../../src/seed/demo/calendar.js';
import { isValidIdNumber } from '../../src/seed/demo/people.js';
import { localOpenId } from '../../src/platform/wechat/local-provider.js';
import { verifyPassword } from '../../src/platform/auth/password.js';
import type { Db } from '../../src/platform/db/database.js';

const NOW = '2026-06-30';
const SCALE = 3000;
const BASE: DemoOptions = { scale: SCALE, seed: 20261122, now: parseDay(NOW)! };

// Every table the generator fills; created_at is compared only where the generator sets it.
const TABLES = [
  'merchant',
  'shop',
  'shop_relation',
  'dept',
  'spu',
  'sku',
  'sku_entrance',
  'tickets_sku',
  'card_model',
  'card_model_resource_rule',
  'card_model_resource_price',
  'checker',
  'checker_relation',
  'checker_config',
  'member',
  'card',
  'card_binding',
  'card_check',
  'admin_user',
  'demo_dataset',
];
const CREATED_AT_SET = new Set(['member', 'card', 'card_binding', 'card_check']);

async function urlOf(db: Db): Promise<string | null> {
  if (!process.env.DATABASE_URL) return null;
  const r = await sql<{ name: string }>`select current_database() as name`.execute(db);
  return adminUrl(process.env.DATABASE_URL, r.rows[0].name);
}

async function run(t: TestDb, extra: Partial<DemoOptions> = {}): Promise<DemoResult> {
  return generateDemoData(t.database, { ...BASE, databaseUrl: await urlOf(t.db), ...extra });
}

/** An ordered digest of every generated row (password hashes are salted and left out). */
async function digest(db: Db): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of TABLES) {
    const drop = `- 'updated_at' - 'password_hash'${CREATED_AT_SET.has(table) ? '' : " - 'created_at'"}`;
    const r = await sql
      .raw<{ n: number; md5: string }>(
        `select count(*)::int as n, md5(coalesce(string_agg((to_jsonb(t) ${drop})::text, E'\\n' order by t.id), '')) as md5 from ${table} t`,
      )
      .execute(db);
    out[table] = `${r.rows[0].n}:${r.rows[0].md5}`;
  }
  const roles = await sql<{ md5: string }>`
    select md5(string_agg(u.username || ':' || r.code, ',' order by u.username, r.code)) as md5
    from user_role ur join admin_user u on u.id = ur.user_id join role r on r.id = ur.role_id`.execute(db);
  out.user_role = roles.rows[0].md5;
  return out;
}

async function count(db: Db, query: string): Promise<number> {
  const r = await sql.raw<{ n: number }>(query).execute(db);
  return Number(r.rows[0].n);
}

describe('demo data generator', () => {
  let a: TestDb;
  let b: TestDb;
  let first: DemoResult;

  beforeAll(async () => {
    [a, b] = await Promise.all([openTestDatabase(), openTestDatabase()]);
    first = await run(a);
    // The second database is loaded through the per-row foreign-key triggers: same rows either way.
    const second = await run(b, { loadMode: 'triggers' });
    expect(second.status).toBe('created');
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('makes about N check-ins and records the run', async () => {
    expect(first.status).toBe('created');
    if (first.status !== 'created') return;
    expect(first.stats.checkRows).toBeGreaterThan(SCALE * 0.95);
    expect(first.stats.checkRows).toBeLessThanOrEqual(SCALE);
    expect(await count(a.db, 'select count(*) as n from card_check')).toBe(first.stats.checkRows);
    const ds = await a.db.selectFrom('demo_dataset').selectAll().execute();
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ seed: BASE.seed, scale: SCALE, check_rows: first.stats.checkRows });
  });

  it("puts each check-in into its UTC month's partition of card_check, none into the default one", async () => {
    for (const db of [a.db, b.db]) {
      expect(await count(db, 'select count(*) as n from card_check_default')).toBe(0);
      expect(
        await count(
          db,
          `select count(*) as n from card_check c
           where c.tableoid::regclass::text <> 'card_check_p' || to_char(c.check_time at time zone 'UTC', 'YYYYMM')`,
        ),
      ).toBe(0);
    }
    // The fast load into PostgreSQL writes the checks in COPY's binary format, the load through triggers
    // as text: the determinism test below compares the two row for row.
    if (first.status === 'created') expect(first.stats.checkFormat).toBe(process.env.DATABASE_URL ? 'binary' : 'text');
  });

  it('spans two years of history, three from 50M check-ins on ("three years of a province")', () => {
    expect(historyMonths(SCALE)).toBe(24);
    expect(historyMonths(49_999_999)).toBe(24);
    expect(historyMonths(100_000_000)).toBe(36);
  });

  it('leaves every index as the migrations made it after the fast load, which drops and rebuilds some', async () => {
    const indexes = async (db: Db) =>
      (
        await sql<{ d: string }>`
      select indexname || ': ' || indexdef as d from pg_indexes where schemaname = current_schema() order by indexname`.execute(
          db,
        )
      ).rows.map((r) => r.d);
    const [fast, triggers] = [await indexes(a.db), await indexes(b.db)];
    expect(fast.some((d) => d.startsWith('stat_check_rollup_cohort_idx: '))).toBe(true);
    expect(fast.some((d) => d.startsWith('card_check_stat_time_idx: '))).toBe(true);
    expect(fast).toEqual(triggers);
  });

  it("folds its check-ins into the statistics' check roll-up (every one, once)", async () => {
    for (const db of [a.db, b.db]) {
      expect(await count(db, 'select folded_to as n from stat_check_fold')).toBe(
        await count(db, 'select max(id) as n from card_check'),
      );
      const differing = await count(
        db,
        `select count(*) as n from (
        select card_id, card_model_id, resource_id, entries, checks from stat_check_rollup
        except
        select card_id, card_model_id, resource_id, sum(consume_num), count(*) from card_check where not is_deleted group by 1, 2, 3) d`,
      );
      expect(differing).toBe(0);
      expect(await count(db, 'select count(*) as n from stat_check_rollup')).toBe(
        await count(
          db,
          'select count(*) as n from (select distinct card_id, card_model_id, resource_id from card_check where not is_deleted) d',
        ),
      );
      const days = `select (check_time at time zone 'UTC')::date, card_model_id, sku_id, sum(consume_num) from card_check where not is_deleted group by 1, 2, 3`;
      expect(await count(db, `select count(*) as n from (${days}) d`)).toBeGreaterThan(0);
      expect(
        await count(
          db,
          `select count(*) as n from ((select check_day, card_model_id, sku_id, entries from stat_check_day) except (${days})) d`,
        ),
      ).toBe(0);
      expect(await count(db, 'select count(*) as n from stat_check_day')).toBe(
        await count(db, `select count(*) as n from (${days}) d`),
      );
    }
  });

  it('writes on the fast load, from its own count, the roll-up that folding through the repository writes', async () => {
    // The fast load into PostgreSQL (a) counts the roll-up while it makes the checks
    // (db/seed/demo/rollup.ts); the load through triggers (b) folds them with foldNextChecks, as
    // both loads do on PGlite. Same rows, to the last column.
    if (first.status === 'created') {
      expect(first.stats.loadMode).toBe('fast');
      expect(first.stats.rollup).toBe(process.env.DATABASE_URL ? 'counted' : 'folded');
    }
    const rowsOf = async (db: Db, table: string) =>
      (
        await sql
          .raw<{ n: number; md5: string }>(
            `select count(*)::int as n, md5(coalesce(string_agg(to_jsonb(t)::text, E'\\n' order by to_jsonb(t)::text), '')) as md5 from ${table} t`,
          )
          .execute(db)
      ).rows[0];
    for (const table of ['stat_check_rollup', 'stat_card_use', 'stat_resource_day', 'stat_check_day']) {
      const fast = await rowsOf(a.db, table);
      expect(fast.n, table).toBeGreaterThan(0);
      expect(fast, table).toEqual(await rowsOf(b.db, table));
    }
  });

  it("fills the portrait's holder table (every living binding once), on the fast load as through its triggers", async () => {
    if (first.status === 'created') expect(first.stats.loadMode).toBe('fast');
    const holders = `select binding_id, card_model_id, merchant_id, shop_id, active_time, document, sex, birth, district from stat_holder`;
    const reference = `select b.id, c.card_model_id, c.merchant_id, c.shop_id, c.active_time,
        md5(coalesce(b.id_type::text, '') || ':' || coalesce('=' || upper(b.id_no), ''))::uuid,
        case when m.sex in (1, 2) then m.sex else coalesce(b.id_sex, 0) end,
        coalesce(to_char(m.birthday, 'YYYYMMDD')::int, b.id_birth), coalesce(m.area_id, b.id_district)
      from card_binding b join card c on c.id = b.card_id left join member m on m.id = b.member_id and not m.is_deleted
      where not b.is_deleted and not c.is_deleted`;
    for (const db of [a.db, b.db]) {
      const n = await count(db, `select count(*) as n from (${reference}) r`);
      expect(n).toBeGreaterThan(0);
      expect(await count(db, 'select count(*) as n from stat_holder')).toBe(n);
      expect(await count(db, `select count(*) as n from ((${holders}) except (${reference})) d`)).toBe(0);
    }
  });

  it('counts its members in the member tally, on the fast load as through its triggers', async () => {
    for (const db of [a.db, b.db]) {
      const byPair = `select status, coalesce(channel, 0) as channel, count(*) as n from member where not is_deleted group by 1, 2`;
      const tallied = `select status, channel, sum(living) as n from member_tally group by 1, 2 having sum(living) <> 0`;
      expect(await count(db, `select count(*) as n from member where not is_deleted`)).toBeGreaterThan(0);
      expect(await count(db, `select count(*) as n from ((${byPair}) except (${tallied})) d`)).toBe(0);
      expect(await count(db, `select count(*) as n from ((${tallied}) except (${byPair})) d`)).toBe(0);
    }
  });

  it('is deterministic: the same seed and date give the same rows, whatever the load path', async () => {
    expect(await digest(b.db)).toEqual(await digest(a.db));
  });

  it('never checks a card over its daily limit, and some holders re-enter where 2 are allowed', async () => {
    const perDay = `
      select c.card_id, c.resource_id, c.check_date, sum(c.consume_num) as used, max(r.daily_check_limit) as lim
      from card_check c join card k on k.id = c.card_id
      join card_model_resource_rule r on r.card_model_id = k.card_model_id and r.resource_id = c.resource_id and not r.is_deleted
      group by 1, 2, 3`;
    expect(await count(a.db, `select count(*) as n from (${perDay}) x where used > lim`)).toBe(0);
    expect(await count(a.db, `select count(*) as n from (${perDay}) x where used = 2 and lim = 2`)).toBeGreaterThan(0);
  });

  it('checks only bound, valid, enabled cards, at their own resources, SKUs, gates and verifiers', async () => {
    const q = (where: string, join = '') =>
      count(a.db, `select count(*) as n from card_check c join card k on k.id = c.card_id ${join} where ${where}`);
    expect(
      await q(
        'c.check_time < k.active_time or c.check_time > k.expire_time or k.status = 3 or c.card_model_id <> k.card_model_id',
      ),
    ).toBe(0);
    expect(
      await q(`c.check_time >= '${NOW}'::date or c.check_date <> (c.check_time at time zone 'Asia/Shanghai')::date`),
    ).toBe(0);
    expect(
      await q(`not exists (select 1 from card_binding b where b.card_id = c.card_id and not b.is_deleted and b.bound_at <= c.check_time
      and b.name = c.tourist_name and b.phone = c.tourist_mobile and b.id_no = c.tourist_card_no)`),
    ).toBe(0);
    expect(
      await q(
        `not exists (select 1 from card_model_resource_rule r where r.card_model_id = k.card_model_id and r.resource_id = c.resource_id and not r.is_deleted)`,
      ),
    ).toBe(0);
    expect(
      await q(
        's.goods_id <> c.resource_id or e.sku_id <> c.sku_id',
        'join sku s on s.id = c.sku_id join sku_entrance e on e.id = c.entrance_id',
      ),
    ).toBe(0);
    expect(
      await q(
        'not exists (select 1 from checker_relation cr where cr.checker_id = c.checker_id and cr.sku_id = c.sku_id and cr.entrance_id = c.entrance_id)',
      ),
    ).toBe(0);
    expect(await q('c.consume_num <> 1 or c.check_type not between 1 and 3')).toBe(0);
    expect(await q(`s.resource_type <> 2`, 'join spu s on s.id = c.resource_id')).toBe(0);
  });

  it('covers all five settlement ways across three allocation-enabled card kinds, with dated prices', async () => {
    const models = await a.db
      .selectFrom('card_model as m')
      .innerJoin('sku', 'sku.id', 'm.sku_id')
      .innerJoin('spu', 'spu.id', 'sku.goods_id')
      .select(['m.id', 'm.price', 'm.validity_months', 'spu.resource_type'])
      .where('m.allocation_enabled', '=', true)
      .execute();
    expect(models).toHaveLength(3);
    for (const m of models) expect(m).toMatchObject({ validity_months: 12, resource_type: 1 });
    const ways = await sql<{
      way: number;
    }>`select distinct settlement_way as way from card_model_resource_rule order by 1`.execute(a.db);
    expect(ways.rows.map((r) => r.way)).toEqual([1, 2, 3, 4, 5]);
    expect(
      await count(
        a.db,
        `select min(n) as n from (select card_model_id, count(*) as n from card_model_resource_rule where settlement_way = 5 group by 1) x`,
      ),
    ).toBeGreaterThanOrEqual(3);
    expect(
      await count(
        a.db,
        `select count(*) as n from card_model_resource_rule where (settlement_way = 1 and buy_price is null)
      or (settlement_way = 2 and buyout_amount is null) or (settlement_way = 3 and share_percent is null)`,
      ),
    ).toBe(0);
    expect(
      await count(a.db, `select count(*) as n from card_model_resource_rule where daily_check_limit = 2`),
    ).toBeGreaterThan(0);
    expect(
      await count(
        a.db,
        `select max(n) as n from (select rule_id, count(distinct (price, settlement_factor)) as n from card_model_resource_price group by 1) x`,
      ),
    ).toBeGreaterThanOrEqual(2);
    // Every check at a way-1 park falls in exactly one price period of its rule.
    expect(
      await count(
        a.db,
        `select count(*) as n from card_check c join card_model_resource_rule r on r.card_model_id = c.card_model_id and r.resource_id = c.resource_id
      where r.settlement_way = 1 and (select count(*) from card_model_resource_price p where p.rule_id = r.id and c.check_date between p.start_date and p.end_date) <> 1`,
      ),
    ).toBe(0);
  });

  it('gives cards every status, channel mix and a valid, varied holder identity', async () => {
    const statuses = await sql<{ status: number }>`select distinct status from card order by 1`.execute(a.db);
    expect(statuses.rows.map((r) => r.status)).toEqual([1, 2, 3, 4]);
    expect(
      await count(
        a.db,
        `select count(*) as n from card where (status <> 3 and expire_time < '${NOW}'::date and status <> 4) or (status = 4 and expire_time >= '${NOW}'::date)`,
      ),
    ).toBe(0);
    expect(
      await count(
        a.db,
        `select count(*) as n from card where active_time < '${NOW}'::date - interval '24 months' or expire_time <> active_time + interval '12 months'`,
      ),
    ).toBe(0);
    expect(await count(a.db, 'select count(distinct channel) as n from card')).toBeGreaterThanOrEqual(6);
    expect(await count(a.db, 'select count(distinct medium) as n from card')).toBe(2);
    expect(await count(a.db, 'select count(*) as n from card where is_donation')).toBeGreaterThan(0);
    const bindings = await a.db.selectFrom('card_binding').select(['id_no', 'id_type']).execute();
    expect(bindings.every((r) => r.id_type === 1 && isValidIdNumber(r.id_no!))).toBe(true);
    const prefixes = [...new Set(bindings.map((r) => Number(r.id_no!.slice(0, 6))))];
    expect(await count(a.db, `select count(*) as n from region where id in (${prefixes.join(',')})`)).toBe(
      prefixes.length,
    );
    const years = bindings.map((r) => Number(r.id_no!.slice(6, 10)));
    expect(Math.max(...years) - Math.min(...years)).toBeGreaterThan(50);
    const sexes = new Set(bindings.map((r) => Number(r.id_no![16]) % 2));
    expect(sexes.size).toBe(2);
  });

  it('follows the seasons: Golden Week and weekends are busier than winter weekdays', async () => {
    const perDay = (where: string) =>
      sql
        .raw<{ v: number }>(`select count(*)::float / count(distinct check_date) as v from card_check where ${where}`)
        .execute(a.db)
        .then((r) => Number(r.rows[0].v));
    const goldenWeek = await perDay(`check_date between '2025-10-01' and '2025-10-07'`);
    const januaryWeekdays = await perDay(
      `check_date between '2026-01-05' and '2026-01-30' and extract(isodow from check_date) < 6`,
    );
    expect(goldenWeek).toBeGreaterThan(januaryWeekdays * 2);
    const weekend = await perDay(`check_date >= '2025-07-01' and extract(isodow from check_date) >= 6`);
    const weekday = await perDay(`check_date >= '2025-07-01' and extract(isodow from check_date) < 6`);
    expect(weekend).toBeGreaterThan(weekday * 1.3);
  });

  it('creates the demo logins', async () => {
    const users = await a.db
      .selectFrom('admin_user as u')
      .leftJoin('merchant as m', 'm.id', 'u.merchant_id')
      .leftJoin('shop as s', 's.id', 'u.shop_id')
      .select([
        'u.username',
        'u.user_type',
        'u.merchant_id',
        'u.password_hash',
        'm.merchant_type',
        's.merchant_id as shop_merchant',
      ])
      .where('u.username', 'in', ['merchant01', 'shop01', 'platform01'])
      .orderBy('u.username')
      .execute();
    const [merchant, platform, shop] = users;
    expect(merchant).toMatchObject({ username: 'merchant01', user_type: 2, merchant_type: 2 });
    expect(shop).toMatchObject({ username: 'shop01', user_type: 3, shop_merchant: merchant.merchant_id });
    expect(platform).toMatchObject({ username: 'platform01', user_type: 1 });
    expect((await verifyPassword(merchant.password_hash, DEMO_PASSWORD)).ok).toBe(true);
    const roles = await sql<{
      username: string;
      code: string;
    }>`select u.username, r.code from user_role ur join admin_user u on u.id = ur.user_id
      join role r on r.id = ur.role_id where u.username in ('merchant01', 'shop01', 'platform01') order by 1`.execute(
      a.db,
    );
    expect(roles.rows).toEqual([
      { username: 'merchant01', code: 'merchant_admin' },
      { username: 'platform01', code: 'super_admin' },
      { username: 'shop01', code: 'shop_admin' },
    ]);

    const checker = await a.db
      .selectFrom('checker')
      .selectAll()
      .where('mobile', '=', '13800000001')
      .executeTakeFirstOrThrow();
    expect((await verifyPassword(checker.password_hash, DEMO_PASSWORD)).ok).toBe(true);
    expect(
      await count(
        a.db,
        `select count(distinct sku_id) as n from checker_relation where checker_id = ${checker.id} and entrance_id is not null`,
      ),
    ).toBeGreaterThanOrEqual(2);
    expect(
      await count(a.db, `select count(*) as n from checker_config where checker_id = ${checker.id}`),
    ).toBeGreaterThan(0);

    expect(DEMO_MEMBER_OPEN_ID).toBe(localOpenId('demo-member-1'));
    const member = await a.db
      .selectFrom('member')
      .select('id')
      .where('open_id', '=', localOpenId('demo-member-1'))
      .executeTakeFirstOrThrow();
    expect(
      await count(
        a.db,
        `select count(*) as n from card_binding b join card k on k.id = b.card_id where b.member_id = ${member.id} and k.status = 2`,
      ),
    ).toBeGreaterThanOrEqual(1);
  });

  it('says so and writes nothing when its demo data is already there', async () => {
    const before = await digest(a.db);
    const again = await run(a);
    expect(again.status).toBe('exists');
    expect(await digest(a.db)).toEqual(before);
  });

  it('advanced the identity sequences, and then refuses the records added after the demo data', async () => {
    const max = await count(a.db, 'select max(id) as n from merchant');
    const added = await a.db
      .insertInto('merchant')
      .values({ name: 'Added later', contact_name: null, contact_phone: null, created_by: null, updated_by: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(added.id).toBe(max + 1);
    const card = await count(a.db, 'select max(id) as n from card');
    const model = await count(a.db, 'select min(id) as n from card_model');
    const newCard = await sql<{
      id: number;
    }>`insert into card (card_number, card_model_id) values ('X-1', ${model}) returning id`.execute(a.db);
    expect(newCard.rows[0].id).toBe(card + 1);
    const refused = await run(a);
    expect(refused.status).toBe('refused');
    expect(refused.message).toMatch(/added after/);
  });
});

describe('demo data generator failing half-way', () => {
  let f: TestDb;
  beforeAll(async () => {
    f = await openTestDatabase();
  });
  afterAll(() => f?.close());

  it('leaves nothing behind, and a later run starts from scratch', async () => {
    const failing = run(f, {
      onProgress: (p) => {
        if (p.phase === 'checks' && p.done > SCALE / 2) throw new Error('simulated failure during the check-ins');
      },
    });
    await expect(failing).rejects.toThrow('simulated failure');
    for (const t of ['merchant', 'spu', 'card_model', 'member', 'card', 'card_binding', 'card_check', 'demo_dataset']) {
      expect(await count(f.db, `select count(*) as n from ${t}`)).toBe(0);
    }
    expect(await count(f.db, `select count(*) as n from admin_user where username in ('merchant01', 'shop01')`)).toBe(
      0,
    );
    expect((await run(f)).status).toBe('created');
  });
});

describe('demo data generator on a database it did not fill', () => {
  let c: TestDb;
  beforeAll(async () => {
    c = await openTestDatabase();
  });
  afterAll(() => c?.close());

  it('refuses to write next to a foreign merchant', async () => {
    await c.db
      .insertInto('merchant')
      .values({ name: 'Real merchant', contact_name: null, contact_phone: null, created_by: null, updated_by: null })
      .execute();
    const result = await run(c);
    expect(result.status).toBe('refused');
    expect(result.message).toMatch(/did not make/);
    for (const t of ['card', 'card_check', 'member', 'spu', 'demo_dataset'])
      expect(await count(c.db, `select count(*) as n from ${t}`)).toBe(0);
    expect(await count(c.db, `select count(*) as n from admin_user where username = 'merchant01'`)).toBe(0);
  });
});
