import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData } from '../../src/seed/demo/index.js';
import { parseDay } from '../../src/seed/demo/calendar.js';
import { openApiDocument } from '../../src/platform/openapi/register.js';
import { PAGE_SIZE_MAX } from '../../src/platform/http/schemas.js';
import { adminUrl } from '../helpers/global-setup.js';
import { createCardBinding, createMember, uniq } from '../helpers/factories.js';
import { staffSession } from '../helpers/staff.js';
import { createCheck, createPark } from '../allocation/fixtures.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { first, operations, sample, type Operation } from '../fuzz/openapi-operations.js';

/**
 * Merchant A reaching merchant B's records, and shop 1 reaching shop 2's, on every scoped operation,
 * found from the route table rather than listed by hand: for each `query<X>Page`/`query<X>List` with a
 * `get<X>` beside it, the records the owner lists and the intruder does not are read, updated and
 * deleted by the intruder with their ids. Each must be refused, and the owner's record stay as it was.
 * The data is the demo generator's (many merchants, shops and records of every kind), plus, for the
 * families it holds none of for the two merchants and shops tried, records made for them in the test
 * (foreignRecords). Every family of the route table is either tried or named below with its reason.
 */

/**
 * Families no merchant or shop owns a record of: platform staff's alone. Merchant and shop sessions
 * must be refused their list and the get, update and delete of a platform record, so that opening one
 * to merchants later (without scoping) fails this test.
 */
const PLATFORM_ONLY: Record<string, string> = {
  // estimation.service: the platform's forecast of what it owes the parks (403 'only platform users can work with estimations')
  EstimationCard: 'platform-only: estimations',
  // codegen.service: column metadata of the code generator (403 'code generation is for platform staff')
  CodegenColumn: 'platform-only: code generation',
};

/**
 * Families whose rows carry no merchant or shop: shared by every account, so there is no other
 * merchant's record to reach. Their writes are guarded by permission only (region:write).
 */
const SHARED: Record<string, string> = {
  // region.service: the national region dictionary (GB/T 2260 codes), read by every staff account
  Region: 'shared dictionary without an owner',
};

/** Filters a list needs, one listing per filter (a filter naming another scope's record is refused: no ids). */
type Filters = Record<string, Array<Record<string, unknown>>>;

let db: TestDb;
let t: TestApp;
const MANAGE = '/manage-api/';

interface Family {
  noun: string;
  list: Operation;
  get: Operation;
  add?: Operation;
  update?: Operation;
  remove?: Operation;
}

function families(ops: Operation[]): Family[] {
  const byPath = new Map(ops.filter((o) => o.method === 'POST' && o.path.startsWith(MANAGE)).map((o) => [o.path, o]));
  const out: Family[] = [];
  for (const op of byPath.values()) {
    const m = /^(.*\/)query(\w+?)(Page|List)$/.exec(op.path);
    if (!m) continue;
    const [, dir, noun] = m;
    const get = byPath.get(`${dir}get${noun}`);
    if (!get || out.some((f) => f.noun === noun && f.get === get)) continue;
    out.push({
      noun,
      list: op,
      get,
      add: byPath.get(`${dir}add${noun}`),
      update: byPath.get(`${dir}update${noun}`),
      remove: byPath.get(`${dir}delete${noun}`),
    });
  }
  return out;
}

async function call(op: Operation, body: unknown, token: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: op.path,
    headers: { authorization: `Bearer ${token}` },
    payload: body as object,
  });
  return res.json() as { errcode: number; errmsg: string; data?: any };
}

/**
 * Every id the account lists through the operation (all pages, under each filter), or null when it
 * cannot be listed whole (refused, or more than 10 pages). A filter the account is refused (403: it
 * names a record of another scope) lists nothing.
 */
async function listedIds(
  op: Operation,
  token: string,
  filters: Array<Record<string, unknown>> = [{}],
): Promise<Set<number> | null> {
  const ids = new Set<number>();
  const base = op.body ? (sample(op.body) as Record<string, unknown>) : {};
  for (const filter of filters) {
    let whole = false;
    for (let pageNum = 1; pageNum <= 10 && !whole; pageNum++) {
      const answer = await call(op, { ...base, ...filter, pageNum, pageSize: PAGE_SIZE_MAX }, token);
      if (answer.errcode === 403 && Object.keys(filter).length > 0) {
        whole = true;
        break;
      }
      if (answer.errcode !== 0) return null;
      const rows: unknown[] = Array.isArray(answer.data)
        ? answer.data
        : Array.isArray(answer.data?.list)
          ? answer.data.list
          : [];
      for (const r of rows) if (r && typeof (r as { id?: unknown }).id === 'number') ids.add((r as { id: number }).id);
      const total = Array.isArray(answer.data) ? rows.length : Number(answer.data?.total ?? rows.length);
      whole = Array.isArray(answer.data) || rows.length === 0 || (pageNum - 1) * PAGE_SIZE_MAX + rows.length >= total;
    }
    if (!whole) return null;
  }
  return ids;
}

/** An update body for the record: the record's own values where the operation takes them, plausible values elsewhere. */
function updateBody(op: Operation, record: Record<string, unknown>): Record<string, unknown> {
  const schema = first(op.body ?? {});
  const body = sample(schema) as Record<string, unknown>;
  for (const key of Object.keys(schema.properties ?? {}))
    if (record[key] !== undefined && record[key] !== null) body[key] = record[key];
  return { ...body, id: record.id };
}

interface Outcome {
  checked: number;
  families: Set<string>;
  skipped: Map<string, string>;
  failures: string[];
}

async function intrude(
  owner: string,
  intruder: string,
  label: string,
  fams: Family[],
  filters: Filters,
): Promise<Outcome> {
  const out: Outcome = { checked: 0, families: new Set(), skipped: new Map(), failures: [] };
  for (const f of fams) {
    const [mine, theirs] = [
      await listedIds(f.list, owner, filters[f.noun]),
      await listedIds(f.list, intruder, filters[f.noun]),
    ];
    if (!mine || !theirs) {
      out.skipped.set(f.noun, `${f.list.path} cannot be listed whole by the ${mine ? 'intruder' : 'owner'}`);
      continue;
    }
    const foreign = [...mine].filter((id) => !theirs.has(id)).slice(0, 3);
    if (foreign.length === 0)
      out.skipped.set(f.noun, `the owner lists ${mine.size} records, none the intruder does not`);
    for (const id of foreign) {
      const before = await call(f.get, { id }, owner);
      if (before.errcode !== 0) {
        out.skipped.set(f.noun, `${f.get.path} {id: ${id}} answers ${before.errcode} to the owner`);
        continue;
      }
      out.families.add(f.noun);
      const read = await call(f.get, { id }, intruder);
      out.checked++;
      if (read.errcode === 0) out.failures.push(`${label}: ${f.get.path} {id: ${id}} answered the record`);
      if (f.update) {
        const changed = await call(f.update, updateBody(f.update, before.data), intruder);
        out.checked++;
        if (changed.errcode === 0) out.failures.push(`${label}: ${f.update.path} {id: ${id}} succeeded`);
      }
      if (f.remove) {
        const removed = await call(f.remove, { id }, intruder);
        out.checked++;
        if (removed.errcode === 0) out.failures.push(`${label}: ${f.remove.path} {id: ${id}} succeeded`);
      }
      const after = await call(f.get, { id }, owner);
      if (JSON.stringify(after.data) !== JSON.stringify(before.data))
        out.failures.push(`${label}: ${f.noun} ${id} changed under the owner`);
    }
  }
  return out;
}

/** A call that must succeed; answers its data. */
async function made(path: string, body: Record<string, unknown>, token: string): Promise<any> {
  const answer = await t.app.inject({
    method: 'POST',
    url: `${MANAGE.slice(0, -1)}${path}`,
    headers: { authorization: `Bearer ${token}` },
    payload: body,
  });
  const json = answer.json() as { errcode: number; errmsg: string; data?: any };
  if (json.errcode !== 0) throw new Error(`${path} ${JSON.stringify(body)}: ${json.errcode} ${json.errmsg}`);
  return json.data;
}

/**
 * Records of merchant B and of shop 2 (of merchant A) in the families the demo data holds none of
 * for them: the demo's card models are the platform merchant's, its cards are held by the sales
 * channels (so its members are theirs), its roles are global, and it makes no sales institution,
 * contract, card batch, allocation, settlement or finance account. Made through the API by B and shop 2 where the
 * operation lets them; by the platform where only it may (a card batch held by a shop, allocations,
 * estimations and their settlement orders, a code generator column for the platform-only checks);
 * with factories where there is no operation (parks, check-ins, members and their bindings).
 * Answers the list filters that need them.
 */
async function foreignRecords(
  s: { p: string; b: string; s2: string },
  ids: { a: number; b: number; shop2: number },
): Promise<Filters> {
  const { db: d } = t;
  const shopB = (
    await d
      .selectFrom('shop')
      .select('id')
      .where('merchant_id', '=', ids.b)
      .where('is_deleted', '=', false)
      .orderBy('id')
      .executeTakeFirstOrThrow()
  ).id;
  // Roles: a merchant role of B, a shop role of shop 2.
  await made('/system/role/addRole', { name: uniq('cs_role_b_'), permissions: ['card:read'] }, s.b);
  await made('/system/role/addRole', { name: uniq('cs_role_s2_'), permissions: ['card:read'] }, s.s2);
  // Card models: B's own; the platform's, admitting one park of shop 2 only (so shop 1 and B do not see it).
  const modelB = (
    await made('/cardModel/addCardModel', { name: uniq('cs B '), price: 10000, allocationEnabled: true }, s.b)
  ).id as number;
  const modelP = (
    await made('/cardModel/addCardModel', { name: uniq('cs P '), price: 10000, allocationEnabled: true }, s.p)
  ).id as number;
  const parkB = await createPark(d, { cardModelId: modelB, shopId: shopB, merchantId: ids.b });
  const park2 = await createPark(d, { cardModelId: modelP, shopId: ids.shop2, merchantId: ids.a });
  // Card batches and their cards: B's model held by B; the platform's held by shop 2.
  const batchB = (await made('/card/generateCardBatch', { cardModelId: modelB, count: 2, medium: 2 }, s.b))
    .id as number;
  const batch2 = (
    await made('/card/generateCardBatch', { cardModelId: modelP, count: 2, medium: 2, shopId: ids.shop2 }, s.p)
  ).id as number;
  // Members: each holds one of those cards; a check-in of it at the park, for the allocation and the settlement.
  for (const [batchId, modelId, park] of [
    [batchB, modelB, parkB],
    [batch2, modelP, park2],
  ] as const) {
    const card = (
      await d.selectFrom('card').select('id').where('batch_id', '=', batchId).orderBy('id').executeTakeFirstOrThrow()
    ).id;
    await d
      .updateTable('card')
      .set({ status: 2, active_time: new Date('2026-03-01T00:00:00Z'), expire_time: new Date('2027-03-01T00:00:00Z') })
      .where('id', '=', card)
      .execute();
    await createCardBinding(d, { card_id: card, member_id: await createMember(d) });
    await createCheck(d, { cardId: card, cardModelId: modelId, park, at: '2026-03-15 10:00:00' });
  }
  // Allocation batches and settlement orders of each model (the platform runs both).
  await made('/distributeAmount/executeCalc', { year: 2026, month: 3, cardModelIds: [modelB, modelP] }, s.p);
  for (const cardModelId of [modelB, modelP]) {
    const estimation = await made(
      '/estimation/calcEstimationCard',
      { cardModelId, profit: 3333, issueNum: 7, estimationPeriod: ['2026-03-01 00:00:00', '2026-03-31 23:59:59'] },
      s.p,
    );
    await made('/estimation/submitEstimationCard', { id: estimation.id }, s.p);
  }
  // Sales institutions, in a department of B and of shop 2.
  const deptB = (
    await d
      .selectFrom('dept')
      .select('id')
      .where('merchant_id', '=', ids.b)
      .where('shop_id', 'is', null)
      .orderBy('id')
      .executeTakeFirstOrThrow()
  ).id;
  const dept2 = (
    await d.selectFrom('dept').select('id').where('shop_id', '=', ids.shop2).orderBy('id').executeTakeFirstOrThrow()
  ).id;
  await made('/sales/addSales', { name: uniq('cs B '), deptId: deptB }, s.b);
  await made('/sales/addSales', { name: uniq('cs S2 '), deptId: dept2 }, s.s2);
  // Finance accounts: B's own, and shop 2's.
  await made(
    '/merchantFinance/addMerchantFinance',
    { name: uniq('cs B '), bank: 'cs bank', bankAccount: '6222000011112222' },
    s.b,
  );
  await made(
    '/merchantFinance/addMerchantFinance',
    { name: uniq('cs S2 '), bank: 'cs bank', bankAccount: '6222000011113333' },
    s.s2,
  );
  // Contracts: B with a third merchant; shop 2 with a third merchant.
  const third = (
    await d
      .selectFrom('merchant')
      .select('id')
      .where('id', 'not in', [ids.a, ids.b])
      .orderBy('id')
      .executeTakeFirstOrThrow()
  ).id;
  await made(
    '/merchantContract/addMerchantContract',
    { contractType: 1, merchantA: String(ids.b), merchantB: String(third) },
    s.b,
  );
  await made(
    '/merchantContract/addMerchantContract',
    { contractType: 1, merchantA: String(ids.a), shopA: String(ids.shop2), merchantB: String(third) },
    s.s2,
  );
  // A code generator column (platform-only: the record merchant and shop sessions are refused).
  await made(
    '/infra/codegen/addCodegenColumn',
    {
      tableId: 1,
      columnName: 'card_number',
      dataType: 'varchar(32)',
      columnComment: 'card number',
      nullable: false,
      primaryKey: false,
      autoIncrement: 'false',
      ordinalPosition: 2,
      javaType: 'String',
      javaField: 'cardNumber',
      createOperation: true,
      updateOperation: true,
      listOperation: true,
      listOperationCondition: 'LIKE',
      listOperationResult: true,
      htmlType: 'input',
    },
    s.p,
  );
  return { CardModelRule: [{ cardModelId: modelB }, { cardModelId: modelP }] };
}

beforeAll(async () => {
  db = await openTestDatabase();
  const name = process.env.DATABASE_URL
    ? (await sql<{ n: string }>`select current_database() as n`.execute(db.db)).rows[0].n
    : null;
  const made = await generateDemoData(db.database, {
    scale: 1000,
    seed: 20261125,
    now: parseDay('2026-06-30')!,
    databaseUrl: name ? adminUrl(process.env.DATABASE_URL!, name) : null,
  });
  expect(made.status).toBe('created');
  t = await createTestApp({}, { db });
}, 180_000);
afterAll(async () => {
  await t?.close();
});

describe('cross-merchant and cross-shop access on every scoped operation of the route table', () => {
  it("refuses reading, changing and deleting another merchant's and another shop's records by id", async () => {
    const fams = families(operations(openApiDocument(t.app)));
    expect(fams.length).toBeGreaterThan(15);
    // The two merchants with the most shops, and two shops of the first.
    const merchants = await t.db
      .selectFrom('shop')
      .select(['merchant_id', sql<number>`count(*)::int`.as('n')])
      .where('is_deleted', '=', false)
      .groupBy('merchant_id')
      .orderBy('n', 'desc')
      .orderBy('merchant_id')
      .limit(2)
      .execute();
    const [a, b] = merchants.map((m) => m.merchant_id);
    const shops = await t.db
      .selectFrom('shop')
      .select('id')
      .where('merchant_id', '=', a)
      .where('is_deleted', '=', false)
      .orderBy('id')
      .limit(2)
      .execute();
    const sessions = {
      p: (await staffSession(t, { kind: 'platform', permissions: ['*'] })).token,
      a: (await staffSession(t, { kind: 'merchant', merchantId: a, permissions: ['*'] })).token,
      b: (await staffSession(t, { kind: 'merchant', merchantId: b, permissions: ['*'] })).token,
      s1: (await staffSession(t, { kind: 'shop', shopId: shops[0].id, permissions: ['*'] })).token,
      s2: (await staffSession(t, { kind: 'shop', shopId: shops[1].id, permissions: ['*'] })).token,
    };
    const filters = await foreignRecords(sessions, { a, b, shop2: shops[1].id });
    const tried = fams.filter((f) => !PLATFORM_ONLY[f.noun] && !SHARED[f.noun]);
    const results = [
      await intrude(sessions.b, sessions.a, 'merchant A on merchant B', tried, filters),
      await intrude(sessions.a, sessions.b, 'merchant B on merchant A', tried, filters),
      await intrude(sessions.s2, sessions.s1, 'shop 1 on shop 2', tried, filters),
    ];
    const failures = results.flatMap((r) => r.failures);
    let checked = results.reduce((n, r) => n + r.checked, 0);
    const covered = new Set(results.flatMap((r) => [...r.families]));

    // Platform-only families: each merchant and shop session is refused the list, and the get, update
    // and delete of a platform record (which stays as it was).
    const nouns = new Set(fams.map((f) => f.noun));
    for (const noun of [...Object.keys(PLATFORM_ONLY), ...Object.keys(SHARED)]) {
      if (!nouns.has(noun))
        failures.push(
          `${noun} is listed as ${PLATFORM_ONLY[noun] ?? SHARED[noun]} but is no family of the route table any more`,
        );
    }
    for (const f of fams.filter((x) => PLATFORM_ONLY[x.noun])) {
      const id = [...((await listedIds(f.list, sessions.p)) ?? [])][0];
      if (id === undefined) {
        failures.push(`${f.noun}: the platform lists no record to try`);
        continue;
      }
      const before = await call(f.get, { id }, sessions.p);
      for (const [who, token] of [
        ['merchant A', sessions.a],
        ['merchant B', sessions.b],
        ['shop 1', sessions.s1],
        ['shop 2', sessions.s2],
      ] as const) {
        const tries: Array<[Operation, Record<string, unknown>]> = [
          [f.list, { ...(f.list.body ? (sample(f.list.body) as object) : {}), pageNum: 1, pageSize: 10 }],
          [f.get, { id }],
        ];
        if (f.update) tries.push([f.update, updateBody(f.update, before.data)]);
        if (f.remove) tries.push([f.remove, { id }]);
        for (const [op, body] of tries) {
          const answer = await call(op, body, token);
          checked++;
          if (answer.errcode !== 403)
            failures.push(
              `${who}: ${op.path} of the platform-only ${f.noun} answered ${answer.errcode} ${answer.errmsg}, not 403`,
            );
        }
      }
      const after = await call(f.get, { id }, sessions.p);
      if (JSON.stringify(after.data) !== JSON.stringify(before.data))
        failures.push(`${f.noun} ${id} changed under the platform`);
    }

    // Every family is tried, or named above with its reason.
    const unexplained = fams
      .filter((f) => !covered.has(f.noun) && !PLATFORM_ONLY[f.noun] && !SHARED[f.noun])
      .map((f) => {
        const why = results.map(
          (r, i) => `${['A on B', 'B on A', 'shop 1 on shop 2'][i]}: ${r.skipped.get(f.noun) ?? 'tried'}`,
        );
        return `${f.noun} (${why.join('; ')})`;
      });
    console.log(
      `cross-scope: ${fams.length} record families in the route table, ${covered.size} with foreign records tried (${[...covered].sort().join(', ')}), ` +
        `${Object.keys(PLATFORM_ONLY).length} platform-only (${Object.keys(PLATFORM_ONLY).join(', ')}), ${Object.keys(SHARED).length} shared (${Object.keys(SHARED).join(', ')}); ` +
        `${checked} intrusions refused or not`,
    );
    for (const u of unexplained) console.log(`cross-scope: not tried: ${u}`);
    expect(failures).toEqual([]);
    expect(unexplained).toEqual([]);
    expect(covered.size).toBeGreaterThanOrEqual(18);
  }, 300_000);
});

describe('a failure at the last step of every logged add, update and delete of the route table', () => {
  it('leaves the records as they were and a failure row in the operation log', async () => {
    const fams = families(operations(openApiDocument(t.app))).filter((f) => f.add || f.update || f.remove);
    const merchant = (
      await t.db
        .selectFrom('shop')
        .select('merchant_id')
        .where('is_deleted', '=', false)
        .orderBy('id')
        .limit(1)
        .executeTakeFirstOrThrow()
    ).merchant_id;
    const owner = await staffSession(t, { kind: 'merchant', merchantId: merchant, permissions: ['*'] });
    // The operation-log row is the last statement of a logged write's transaction: refusing it (for
    // this account only) fails the transaction after all its other statements ran.
    await sql
      .raw(
        `create or replace function test_refuse_oplog() returns trigger language plpgsql as $$
      begin
        if new.success and new.account_id = ${Number(owner.userId)} then raise exception 'injected failure'; end if;
        return new;
      end $$`,
      )
      .execute(t.db);
    await sql
      .raw(
        'create trigger test_refuse_oplog before insert on operate_log for each row execute function test_refuse_oplog()',
      )
      .execute(t.db);
    try {
      const failures: string[] = [];
      const injected: string[] = [];
      for (const f of fams) {
        const ids = await listedIds(f.list, owner.token);
        const id = ids ? [...ids][0] : undefined;
        if (id === undefined) continue;
        const before = await call(f.get, { id }, owner.token);
        if (before.errcode !== 0) continue;
        for (const op of [f.add, f.update, f.remove]) {
          if (!op) continue;
          let body: Record<string, unknown> = { id };
          if (op !== f.remove) {
            // change one text the record shows, so a partial write would show (an add: a copy of the
            // record under another name)
            body = updateBody(op, before.data);
            if (op === f.add) delete body.id;
            const props = first(op.body ?? {}).properties ?? {};
            const field = ['remark', 'name', 'nickname', 'title', 'contactName', 'description'].find(
              (k) => typeof body[k] === 'string' && first(props[k] ?? {}).type === 'string',
            );
            if (!field) continue;
            const max = first(props[field]).maxLength ?? 64;
            body[field] = `${String(body[field]).slice(0, max - 2)}·x`;
          }
          const answer = await call(op, body, owner.token);
          if (answer.errcode === 0)
            failures.push(`${op.path} {id: ${id}} succeeded although its operation-log row was refused`);
          if (answer.errcode !== 500) continue; // refused before writing (its own rule), nothing to roll back
          injected.push(op.path.split('/').pop()!);
          const after = await call(f.get, { id }, owner.token);
          if (JSON.stringify(after.data) !== JSON.stringify(before.data))
            failures.push(`${op.path} {id: ${id}} left a partial change: ${JSON.stringify(after.data).slice(0, 200)}`);
          const listed = await listedIds(f.list, owner.token);
          if (listed && ids && listed.size !== ids.size)
            failures.push(`${op.path}: the list holds ${listed.size} records, ${ids.size} before`);
          const logged = await t.db
            .selectFrom('operate_log')
            .select('id')
            .where('path', '=', op.path)
            .where('account_id', '=', owner.userId)
            .where('success', '=', false)
            .executeTakeFirst();
          if (!logged) failures.push(`${op.path}: no failure row in the operation log`);
        }
      }
      console.log(
        `injected failures: ${injected.length} logged writes rolled back whole (${injected.sort().join(', ')})`,
      );
      expect(failures).toEqual([]);
      expect(injected.length).toBeGreaterThanOrEqual(5);
    } finally {
      await sql.raw('drop trigger test_refuse_oplog on operate_log').execute(t.db);
    }
  }, 300_000);
});
