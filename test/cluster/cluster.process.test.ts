import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniq } from '../helpers/factories.js';
import { TEST_ADMIN } from '../helpers/test-env.js';
import { createBankChannel, createBankUser, newPerson, P as BANK } from '../bank/bank-fixtures.js';
import { checkQuotaRun } from '../bank/quota-check.js';
import { heldCard } from '../checker/checkin-fixtures.js';
import {
  adminToken,
  call,
  fetchCaptcha,
  newClientIp,
  openSignature,
  PG_URL,
  REDIS_URL,
  smsCode,
  staffLogin,
  startCluster,
  type Cluster,
} from './cluster.js';
import { spotWithVerifier } from './verifier-spot.js';

/**
 * docs/architecture.md §2: N stateless instances share PostgreSQL and Redis. Two real server processes, started
 * at the same moment on one fresh, empty PostgreSQL database and one Redis prefix; every check sends
 * one step to one process and the next step to the other. Only PostgreSQL and Redis can be shared
 * between processes, so without both the file is skipped.
 */

const CAPTCHA_RATE = 12;
const ACTIVATIONS = 200;
const QUOTA = 50;
const SCANS = 24;

const M = '/manage-api';
let cluster: Cluster;
let one: string;
let two: string;
let firstRegion: number;

describe.skipIf(!PG_URL || !REDIS_URL)(
  'two server processes on one PostgreSQL and one Redis (skipped unless DATABASE_URL and REDIS_URL are set)',
  () => {
    beforeAll(async () => {
      cluster = await startCluster({ from: 'empty', env: { CAPTCHA_RATE_PER_MIN: String(CAPTCHA_RATE) } });
      [one, two] = cluster.servers.map((s) => s.base);
      console.info(`[cluster] two processes ready on an empty database in ${cluster.startMs} ms`);
      firstRegion = (
        await cluster.database.db
          .selectFrom('region')
          .select((e) => e.fn.min('id').as('id'))
          .executeTakeFirstOrThrow()
      ).id as number;
    }, 180_000);
    afterAll(async () => {
      await cluster?.close();
    });

    it('both came up at once on the empty database, and exactly one of them migrated and seeded it', async () => {
      const outputs = cluster.servers.map((s) => s.output());
      expect(
        outputs.filter((o) => /Seeded \d+ regions/.test(o)),
        outputs.join('\n----\n'),
      ).toHaveLength(1);
      const db = cluster.database.db;
      const count = async (q: ReturnType<typeof sql<{ n: number }>>) => Number((await q.execute(db)).rows[0].n);
      expect(await count(sql`select count(*) as n from region`)).toBeGreaterThan(3000);
      expect(await count(sql`select count(*) as n from admin_user`)).toBe(1);
      for (const base of [one, two]) {
        const ready = await call(base, '/readyz');
        expect(ready.body.data).toEqual({ status: 'ready', database: 'postgres', store: 'redis' });
      }
    });

    it('a captcha fetched from one logs in on the other, once; the session works on both; logout on one ends it on both at once', async () => {
      const { key } = await fetchCaptcha(one);
      const code = await cluster.store.get(`captcha:${key}`);
      expect(code).toMatch(/^\d{4}$/);
      const wrong = await call(
        two,
        `${M}/auth/login`,
        {
          username: TEST_ADMIN.username,
          password: TEST_ADMIN.password,
          code: code === '0000' ? '1111' : '0000',
          uuid: key,
        },
        { ip: newClientIp() },
      );
      expect(wrong.body.errcode).toBe(1_002_000_003);
      // a wrong answer spends the code on every instance
      const again = await call(
        one,
        `${M}/auth/login`,
        { username: TEST_ADMIN.username, password: TEST_ADMIN.password, code, uuid: key },
        { ip: newClientIp() },
      );
      expect(again.body.errcode).toBe(1_002_000_002);

      const login = await staffLogin(cluster.store, { captchaFrom: one, loginAt: two });
      expect(login.body.errcode, login.body.errmsg).toBe(0);
      const token = login.body.data.accessToken as string;
      for (const base of [one, two]) {
        const got = await call(base, `${M}/region/getRegion`, { id: firstRegion }, { token });
        expect(got.body.errcode, got.body.errmsg).toBe(0);
      }
      // a refresh on one: the old access token stops on both, the new one works on both
      const refreshed = await call(one, `${M}/auth/refreshToken`, { refreshToken: login.body.data.refreshToken });
      expect(refreshed.body.errcode, refreshed.body.errmsg).toBe(0);
      expect((await call(two, `${M}/region/getRegion`, { id: firstRegion }, { token })).body.errcode).toBe(401);
      const fresh = refreshed.body.data.accessToken as string;
      expect((await call(two, `${M}/region/getRegion`, { id: firstRegion }, { token: fresh })).body.errcode).toBe(0);

      const out = await call(one, `${M}/auth/logout`, {}, { token: fresh });
      expect(out.body.errcode, out.body.errmsg).toBe(0);
      const [onTwo, onOne] = await Promise.all(
        [two, one].map((base) => call(base, `${M}/region/getRegion`, { id: firstRegion }, { token: fresh })),
      );
      expect([onTwo.body.errcode, onOne.body.errcode]).toEqual([401, 401]);
    });

    it('a region written through one is in the other’s cached tree and list at once', async () => {
      const token = await adminToken(cluster.store, one);
      const tree = async (base: string) =>
        (await call(base, `${M}/region/queryRegionTree`, {}, { token })).body.data as Array<{
          id: number;
          name: string;
        }>;
      // both caches warm
      const before = await Promise.all([tree(one), tree(two)]);
      const name = `集群-${uniq()}`.slice(0, 30);
      const added = await call(one, `${M}/region/addRegion`, { name, levelType: 1 }, { token });
      expect(added.body.errcode, added.body.errmsg).toBe(0);
      const id = added.body.data.id as number;
      expect(before[1].some((r) => r.id === id)).toBe(false);
      // no waiting: the next request to the other process already sees it
      expect((await tree(two)).find((r) => r.id === id)?.name).toBe(name);
      const renamed = `${name}-改`;
      expect(
        (await call(two, `${M}/region/updateRegion`, { id, name: renamed, levelType: 1 }, { token })).body.errcode,
      ).toBe(0);
      expect((await tree(one)).find((r) => r.id === id)?.name).toBe(renamed);
      const listed = await call(one, '/open-api/region/queryRegionList', { idList: [id] }, { token });
      expect(listed.body.data.map((r: { name: string }) => r.name)).toEqual([renamed]);
      expect((await call(one, `${M}/region/deleteRegion`, { id }, { token })).body.errcode).toBe(0);
      expect((await tree(two)).some((r) => r.id === id)).toBe(false);
    });

    it(`rate limits are counted once for both: ${CAPTCHA_RATE} captchas a minute per address, however they are spread`, async () => {
      // A fixed one-minute window: a run that straddles its edge counts in two windows, so try again.
      for (let attempt = 0; ; attempt++) {
        const ip = newClientIp();
        const window = Math.floor(Date.now() / 60_000);
        const answers = await Promise.all(
          Array.from({ length: CAPTCHA_RATE + 6 }, (_, i) => fetchCaptcha(i % 2 ? two : one, ip)),
        );
        if (Math.floor(Date.now() / 60_000) !== window && attempt === 0) continue;
        const codes = answers.map((a) => (a.key ? 'image' : a.answer.body.errcode));
        expect(codes.filter((c) => c === 'image')).toHaveLength(CAPTCHA_RATE);
        expect(codes.filter((c) => c === 429)).toHaveLength(6);
        // each process goes on refusing the address, and another address is not held back
        for (const base of [one, two]) expect((await fetchCaptcha(base, ip)).answer.body.errcode).toBe(429);
        expect((await fetchCaptcha(two)).key).toBeTruthy();
        return;
      }
    });

    it('a lock-out earned on both is enforced by both', async () => {
      const ip = newClientIp();
      const tries = [];
      for (let i = 0; i < 5; i++) {
        tries.push(
          await staffLogin(cluster.store, {
            captchaFrom: one,
            loginAt: i % 2 ? two : one,
            ip,
            password: 'wrong-password-1',
          }),
        );
      }
      expect(tries.map((t) => t.body.errcode)).toEqual([
        1_002_000_000, 1_002_000_000, 1_002_000_000, 1_002_000_000, 423,
      ]);
      for (const base of [one, two]) {
        const right = await staffLogin(cluster.store, { captchaFrom: base, loginAt: base, ip });
        expect(right.body.errcode, right.body.errmsg).toBe(423);
      }
      // only that address is locked out
      expect((await staffLogin(cluster.store, { captchaFrom: one, loginAt: two })).body.errcode).toBe(0);
    });

    it('an open-channel nonce spent on one is refused by the other', async () => {
      const url = '/open-api/region/queryRegionList';
      const body = JSON.stringify({ idList: [firstRegion] });
      const headers = openSignature(url, body);
      const first = await call(one, url, undefined, { raw: body, headers });
      expect(first.body.errcode, first.body.errmsg).toBe(0);
      expect(first.body.data).toHaveLength(1);
      const replayed = await Promise.all([two, one].map((base) => call(base, url, undefined, { raw: body, headers })));
      expect(replayed.map((r) => [r.body.errcode, r.body.errmsg])).toEqual(
        Array(2).fill([401, 'X-Nonce has already been used']),
      );
    });

    it(`SMS codes texted through one are checked on the other; ${ACTIVATIONS} concurrent activations over both hold one quota of ${QUOTA}`, async () => {
      const db = cluster.database.db;
      const bank = await createBankChannel(db, { operators: [{ total: QUOTA, day: ACTIVATIONS }], pool: QUOTA + 10 });
      const teller = await createBankUser(db, { businessId: bank.businessId, operatorRowId: bank.operators[0].id });
      const ip = newClientIp();
      expect(
        (await call(one, `${BANK}/sendSmsCode`, { phone: teller.mobile, purpose: 'login' }, { ip })).body.errcode,
      ).toBe(0);
      const code = await smsCode(cluster.store, 'bank-login', teller.mobile);
      const login = await call(
        two,
        `${BANK}/bankLogin`,
        { mobile: teller.mobile, password: teller.password, verifyCode: code },
        { ip },
      );
      expect(login.body.data?.code, JSON.stringify(login.body)).toBe(200);
      // the code was spent on two: one refuses it too (500: expired or used)
      const reused = await call(
        one,
        `${BANK}/bankLogin`,
        { mobile: teller.mobile, password: teller.password, verifyCode: code },
        { ip },
      );
      expect(reused.body.data?.code).toBe(500);
      // and the resend gap of the phone holds across both
      expect(
        (await call(two, `${BANK}/sendSmsCode`, { phone: teller.mobile, purpose: 'login' }, { ip })).body.errcode,
      ).toBe(429);
      const token = login.body.data.data.accessToken as string;

      const people = Array.from({ length: ACTIVATIONS }, () => newPerson());
      for (let i = 0; i < people.length; i += 20) {
        const sent = await Promise.all(
          people
            .slice(i, i + 20)
            .map((p, k) =>
              call(k % 2 ? two : one, `${BANK}/sendSmsCode`, { phone: p.phone, purpose: 'activate' }, { token }),
            ),
        );
        for (const s of sent) expect(s.body.errcode, s.body.errmsg).toBe(0);
      }
      const codes = await Promise.all(people.map((p) => smsCode(cluster.store, 'bank-activate', p.phone)));
      const started = performance.now();
      // each code is checked on the process that did not text it
      const answers = await Promise.all(
        people.map((p, i) =>
          call(i % 2 ? one : two, `${BANK}/activateBankCard`, { ...p, verifyCode: codes[i] }, { token }),
        ),
      );
      console.info(
        `[cluster] ${ACTIVATIONS} concurrent activations across two processes answered in ${Math.round(performance.now() - started)} ms`,
      );
      const outcome = answers.map((a) =>
        a.body.errcode === 0 ? a.body.data.code : `errcode ${a.body.errcode}: ${a.body.errmsg}`,
      );
      await checkQuotaRun(db, bank, outcome, { attempts: ACTIVATIONS, quota: QUOTA });
      const perProcess = [0, 1].map((k) => outcome.filter((c, i) => c === 200 && i % 2 === k).length);
      expect(
        perProcess.every((n) => n > 0),
        `successes per process: ${perProcess}`,
      ).toBe(true);
    });

    it(`${SCANS} concurrent check-ins of one card (limit 1 a day) over both: exactly one passes`, async () => {
      const db = cluster.database.db;
      const { skuId, modelId, token } = await spotWithVerifier(db, two);
      const { cardId, cardNumber } = await heldCard(db, modelId);
      const answers = await Promise.all(
        Array.from({ length: SCANS }, (_, i) =>
          call(i % 2 ? two : one, '/app-api/checker/addCheckerConsumeRecord', { skuId, cardNumber }, { token }),
        ),
      );
      const codes = answers.map((a) => a.body.errcode);
      expect(
        codes.filter((c) => c === 0),
        JSON.stringify(answers.map((a) => a.body)),
      ).toHaveLength(1);
      expect(codes.filter((c) => c === 1_013_000_007)).toHaveLength(SCANS - 1);
      const records = await db.selectFrom('card_check').select('id').where('card_id', '=', cardId).execute();
      expect(records).toHaveLength(1);
    });

    it('neither process logged an unexpected error', () => {
      for (const s of cluster.servers) expect(s.output()).not.toMatch(/"level":50|"level":60/);
    });
  },
);
