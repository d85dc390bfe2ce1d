import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData } from '../../src/db/seed/demo/index.js';
import { parseDay } from '../../src/db/seed/demo/calendar.js';
import { openApiDocument } from '../../src/platform/openapi.js';
import { PAGE_SIZE_MAX } from '../../src/platform/http/schemas.js';
import { adminUrl } from '../helpers/global-setup.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, openTestDatabase, type TestApp, type TestDb } from '../helpers/test-app.js';
import { first, operations, sample, type Operation } from '../fuzz/openapi-operations.js';

/**
 * Merchant A reaching merchant B's records, and shop 1 reaching shop 2's, on every scoped operation,
 * found from the route table rather than listed by hand: for each `query<X>Page`/`query<X>List` with a
 * `get<X>` beside it, the records the owner lists and the intruder does not are read, updated and
 * deleted by the intruder with their ids. Each must be refused, and the owner's record stay as it was.
 * The data is the demo generator's (many merchants, shops and records of every kind).
 */

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
    out.push({ noun, list: op, get, add: byPath.get(`${dir}add${noun}`), update: byPath.get(`${dir}update${noun}`), remove: byPath.get(`${dir}delete${noun}`) });
  }
  return out;
}

async function call(op: Operation, body: unknown, token: string) {
  const res = await t.app.inject({ method: 'POST', url: op.path, headers: { authorization: `Bearer ${token}` }, payload: body as object });
  return res.json() as { errcode: number; errmsg: string; data?: any };
}

/** Every id the account lists through the operation (all pages), or null when it cannot be listed whole. */
async function listedIds(op: Operation, token: string): Promise<Set<number> | null> {
  const ids = new Set<number>();
  const base = op.body ? (sample(op.body) as Record<string, unknown>) : {};
  for (let pageNum = 1; pageNum <= 10; pageNum++) {
    const answer = await call(op, { ...base, pageNum, pageSize: PAGE_SIZE_MAX }, token);
    if (answer.errcode !== 0) return null;
    const rows: unknown[] = Array.isArray(answer.data) ? answer.data : Array.isArray(answer.data?.list) ? answer.data.list : [];
    for (const r of rows) if (r && typeof (r as { id?: unknown }).id === 'number') ids.add((r as { id: number }).id);
    const total = Array.isArray(answer.data) ? rows.length : Number(answer.data?.total ?? rows.length);
    if (Array.isArray(answer.data) || ids.size >= total || rows.length === 0) return ids;
  }
  return null;
}

/** An update body for the record: the record's own values where the operation takes them, plausible values elsewhere. */
function updateBody(op: Operation, record: Record<string, unknown>): Record<string, unknown> {
  const schema = first(op.body ?? {});
  const body = sample(schema) as Record<string, unknown>;
  for (const key of Object.keys(schema.properties ?? {})) if (record[key] !== undefined && record[key] !== null) body[key] = record[key];
  return { ...body, id: record.id };
}

interface Outcome { checked: number; families: Set<string>; failures: string[] }

async function intrude(owner: string, intruder: string, label: string, fams: Family[]): Promise<Outcome> {
  const out: Outcome = { checked: 0, families: new Set(), failures: [] };
  for (const f of fams) {
    const [mine, theirs] = [await listedIds(f.list, owner), await listedIds(f.list, intruder)];
    if (!mine || !theirs) continue;
    const foreign = [...mine].filter((id) => !theirs.has(id)).slice(0, 3);
    for (const id of foreign) {
      const before = await call(f.get, { id }, owner);
      if (before.errcode !== 0) continue;
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
      if (JSON.stringify(after.data) !== JSON.stringify(before.data)) out.failures.push(`${label}: ${f.noun} ${id} changed under the owner`);
    }
  }
  return out;
}

beforeAll(async () => {
  db = await openTestDatabase();
  const name = process.env.DATABASE_URL ? (await sql<{ n: string }>`select current_database() as n`.execute(db.db)).rows[0].n : null;
  const made = await generateDemoData(db.database, { scale: 1000, seed: 20261125, now: parseDay('2026-06-30')!, databaseUrl: name ? adminUrl(process.env.DATABASE_URL!, name) : null });
  expect(made.status).toBe('created');
  t = await createTestApp({}, { db });
}, 180_000);
afterAll(async () => {
  await t?.close();
});

describe('cross-merchant and cross-shop access on every scoped operation of the route table', () => {
  it('refuses reading, changing and deleting another merchant\'s and another shop\'s records by id', async () => {
    const fams = families(operations(openApiDocument(t.app)));
    expect(fams.length).toBeGreaterThan(15);
    // The two merchants with the most shops, and two shops of the first.
    const merchants = await t.db.selectFrom('shop').select(['merchant_id', sql<number>`count(*)::int`.as('n')]).where('is_deleted', '=', false)
      .groupBy('merchant_id').orderBy('n', 'desc').orderBy('merchant_id').limit(2).execute();
    const [a, b] = merchants.map((m) => m.merchant_id);
    const shops = await t.db.selectFrom('shop').select('id').where('merchant_id', '=', a).where('is_deleted', '=', false).orderBy('id').limit(2).execute();
    const sessions = {
      a: (await staffSession(t, { kind: 'merchant', merchantId: a, permissions: ['*'] })).token,
      b: (await staffSession(t, { kind: 'merchant', merchantId: b, permissions: ['*'] })).token,
      s1: (await staffSession(t, { kind: 'shop', shopId: shops[0].id, permissions: ['*'] })).token,
      s2: (await staffSession(t, { kind: 'shop', shopId: shops[1].id, permissions: ['*'] })).token,
    };
    const results = [
      await intrude(sessions.b, sessions.a, 'merchant A on merchant B', fams),
      await intrude(sessions.a, sessions.b, 'merchant B on merchant A', fams),
      await intrude(sessions.s2, sessions.s1, 'shop 1 on shop 2', fams),
    ];
    const failures = results.flatMap((r) => r.failures);
    const checked = results.reduce((n, r) => n + r.checked, 0);
    const covered = new Set(results.flatMap((r) => [...r.families]));
    console.log(`cross-scope: ${fams.length} record families in the route table, ${covered.size} with foreign records to try (${[...covered].sort().join(', ')}), ${checked} intrusions refused or not`);
    expect(failures).toEqual([]);
    expect(covered.size).toBeGreaterThanOrEqual(8);
  }, 300_000);
});

describe('a failure at the last step of every logged add, update and delete of the route table', () => {
  it('leaves the records as they were and a failure row in the operation log', async () => {
    const fams = families(operations(openApiDocument(t.app))).filter((f) => f.add || f.update || f.remove);
    const merchant = (await t.db.selectFrom('shop').select('merchant_id').where('is_deleted', '=', false).orderBy('id').limit(1).executeTakeFirstOrThrow()).merchant_id;
    const owner = await staffSession(t, { kind: 'merchant', merchantId: merchant, permissions: ['*'] });
    // The operation-log row is the last statement of a logged write's transaction: refusing it (for
    // this account only) fails the transaction after all its other statements ran.
    await sql.raw(`create or replace function test_refuse_oplog() returns trigger language plpgsql as $$
      begin
        if new.success and new.account_id = ${Number(owner.userId)} then raise exception 'injected failure'; end if;
        return new;
      end $$`).execute(t.db);
    await sql.raw('create trigger test_refuse_oplog before insert on operate_log for each row execute function test_refuse_oplog()').execute(t.db);
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
            const field = ['remark', 'name', 'nickname', 'title', 'contactName', 'description'].find((k) => typeof body[k] === 'string' && first(props[k] ?? {}).type === 'string');
            if (!field) continue;
            const max = first(props[field]).maxLength ?? 64;
            body[field] = `${String(body[field]).slice(0, max - 2)}·x`;
          }
          const answer = await call(op, body, owner.token);
          if (answer.errcode === 0) failures.push(`${op.path} {id: ${id}} succeeded although its operation-log row was refused`);
          if (answer.errcode !== 500) continue; // refused before writing (its own rule), nothing to roll back
          injected.push(op.path.split('/').pop()!);
          const after = await call(f.get, { id }, owner.token);
          if (JSON.stringify(after.data) !== JSON.stringify(before.data)) failures.push(`${op.path} {id: ${id}} left a partial change: ${JSON.stringify(after.data).slice(0, 200)}`);
          const listed = await listedIds(f.list, owner.token);
          if (listed && ids && listed.size !== ids.size) failures.push(`${op.path}: the list holds ${listed.size} records, ${ids.size} before`);
          const logged = await t.db.selectFrom('operate_log').select('id').where('path', '=', op.path).where('account_id', '=', owner.userId).where('success', '=', false).executeTakeFirst();
          if (!logged) failures.push(`${op.path}: no failure row in the operation log`);
        }
      }
      console.log(`injected failures: ${injected.length} logged writes rolled back whole (${injected.sort().join(', ')})`);
      expect(failures).toEqual([]);
      expect(injected.length).toBeGreaterThanOrEqual(5);
    } finally {
      await sql.raw('drop trigger test_refuse_oplog on operate_log').execute(t.db);
    }
  }, 300_000);
});
