/**
 * The world the check-in benches scan in (checkin, capacity, offline-sync, offline-pack): a scratch
 * PostgreSQL database beside DATABASE_URL's with the app's config over it, and the rows a scan is
 * judged on, made directly: a merchant and its shop, scenic spots (a resource, its SKU and gates),
 * card models with a rule per resource, verifiers posted at spots or gates, bound cards in bulk, and
 * the verifiers' access tokens.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase, type Database, type Db } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { seedReferenceData } from '../src/seed/reference.js';
import { hashPassword } from '../src/platform/auth/password.js';
import { TokenService } from '../src/platform/auth/tokens.js';
import type { Store } from '../src/platform/store/index.js';
import { loadCheckerAccount } from '../src/modules/checker/checker-login.repository.js';
import { scratchDatabase } from './bench-app.js';

/**
 * DATABASE_URL, the PostgreSQL server the bench makes its scratch database on. Without it the bench
 * says so and exits: nothing measured.
 */
export function benchServerUrl(bench: string, opts: { redisOptional: boolean }): string {
  const url = process.env.DATABASE_URL;
  if (url) return url;
  console.log(
    `${bench} bench: set DATABASE_URL to a PostgreSQL database${opts.redisOptional ? ' (REDIS_URL optional)' : ''}; nothing measured.`,
  );
  process.exit(0);
}

/**
 * The knobs of a check-in load over HTTP from bench/checkin-load.ts: BENCH_DURATION_S (10 s measured
 * a side), BENCH_ROUNDS (2, alternating), BENCH_CONNECTIONS (32), BENCH_POOL (the service's pool, 20).
 */
export const loadKnobs = {
  durationS: Number(process.env.BENCH_DURATION_S ?? 10),
  rounds: Number(process.env.BENCH_ROUNDS ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  pool: Number(process.env.BENCH_POOL ?? 20),
};
/** At most this many HTTP scans a second are given cards (a run beyond it would run out and fail). */
export const HTTP_CARDS_PER_S = 8_000;
/** What a run of bench/checkin-load.ts answers: scans sent, admitted, and the seconds it took. */
export type LoadRun = { ok: number; seconds: number; done: number };

/** `url` naming database `name` on the same server. */
export const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/**
 * The app's config over a database URL as the check-in benches run it: the process's environment,
 * silent, the bench's own data folder and store prefix, and (`loginRatePerMin`) room for the logins
 * of a run. Sets the process's time zone to the service's.
 */
export function checkinBenchConfig(opts: {
  baseUrl: string;
  dataDir: string;
  storePrefix: string;
  loginRatePerMin?: number;
}): (databaseUrl: string) => Config {
  const config = (databaseUrl: string) =>
    loadConfig({
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: opts.dataDir,
      LOG_LEVEL: 'silent',
      STORE_PREFIX: opts.storePrefix,
      ...(opts.loginRatePerMin === undefined ? {} : { LOGIN_RATE_PER_MIN: String(opts.loginRatePerMin) }),
    });
  process.env.TZ = config(opts.baseUrl).tz;
  return config;
}

export interface WorldDatabase {
  /** the database's name (pg_stat_activity's datname) */
  name: string;
  url: string;
  cfg: Config;
  database: Database;
  db: Db;
}

/**
 * Runs `work` on a new tc_bench_<random> database beside `baseUrl`'s, migrated and (unless
 * `seedReference` is false) holding the reference data, then closes it and drops it, or keeps it to
 * look into (`keep`). `inPlace`: on `baseUrl`'s own database instead, migrated, neither seeded nor
 * dropped (what the bench makes there is left).
 */
export async function withScratchWorld<T>(
  opts: {
    baseUrl: string;
    config: (databaseUrl: string) => Config;
    /** the pool's size (the app's default when not given) */
    pool?: number;
    inPlace?: boolean;
    seedReference?: boolean;
    keep?: boolean;
  },
  work: (world: WorldDatabase) => Promise<T>,
): Promise<T> {
  const scratch = opts.inPlace
    ? {
        name: new URL(opts.baseUrl).pathname.slice(1),
        url: opts.baseUrl,
        drop: async () => {},
        keep: async () => {},
      }
    : await scratchDatabase(withDatabase(opts.baseUrl, 'postgres'));
  let database: Database | null = null;
  try {
    const cfg = opts.config(scratch.url);
    database = openDatabase({
      databaseUrl: cfg.databaseUrl,
      dataDir: cfg.dataDir,
      tz: cfg.tz,
      ...(opts.pool === undefined ? {} : { poolMax: opts.pool }),
    });
    const db = database.db;
    await migrateToLatest(db);
    if (!opts.inPlace && opts.seedReference !== false)
      await seedReferenceData(db, {
        adminUsername: 'admin',
        adminPassword: randomBytes(9).toString('hex'),
        openApp: null,
      });
    return await work({ name: scratch.name, url: scratch.url, cfg, database, db });
  } finally {
    await database?.close();
    if (opts.keep) {
      console.log(`  (scratch database ${scratch.name} kept)`);
      await scratch.keep();
    } else await scratch.drop();
  }
}

const idOf = async (q: { executeTakeFirstOrThrow(): Promise<{ id: number }> }) =>
  (await q.executeTakeFirstOrThrow()).id;

/** The merchant and shop that own a world's spots and verifiers. */
export interface Owner {
  merchant: number;
  shop: number;
}

export async function makeOwner(db: Db, names: { merchant: string; shop: string }): Promise<Owner> {
  const merchant = await idOf(db.insertInto('merchant').values({ name: names.merchant }).returning('id'));
  const shop = await idOf(db.insertInto('shop').values({ name: names.shop, merchant_id: merchant }).returning('id'));
  return { merchant, shop };
}

/** A scenic spot: its resource (an SPU of resource type 2), its SKU and its gates, in the order named. */
export async function makeSpot(
  db: Db,
  owner: Owner,
  names: { resource: string; entry: string; gates?: string[] },
): Promise<{ spu: number; sku: number; gates: number[] }> {
  const spu = await idOf(
    db
      .insertInto('spu')
      .values({ name: names.resource, shop_id: owner.shop, merchant_id: owner.merchant, resource_type: 2 })
      .returning('id'),
  );
  const sku = await idOf(
    db
      .insertInto('sku')
      .values({ goods_id: spu, merchant_id: owner.merchant, shop_id: owner.shop, sku_name: names.entry })
      .returning('id'),
  );
  const gates: number[] = [];
  for (const entrance_name of names.gates ?? [])
    gates.push(
      await idOf(
        db
          .insertInto('sku_entrance')
          .values({ sku_id: sku, entrance_name, merchant_id: owner.merchant, shop_id: owner.shop, goods_id: spu })
          .returning('id'),
      ),
    );
  return { spu, sku, gates };
}

/** A card model (¥198) and its rules: settled by use at ¥50, `dailyLimit` entries a day at each resource. */
export async function makeCardModel(db: Db, name: string, resources: number[], dailyLimit: number): Promise<number> {
  const model = await idOf(db.insertInto('card_model').values({ name, price: 19800 }).returning('id'));
  for (const resource_id of resources)
    await db
      .insertInto('card_model_resource_rule')
      .values({ card_model_id: model, resource_id, settlement_way: 1, buy_price: 5000, daily_check_limit: dailyLimit })
      .execute();
  return model;
}

/**
 * A verifier of the owner posted at `posts` (a spot's every gate when `entrance` is null). Its password
 * is hashed as the app stores one when given (for a login over HTTP); else it has none that matches.
 */
export async function makeVerifier(
  db: Db,
  owner: Owner,
  v: { mobile: string; name: string; password: string | null; posts: Array<{ sku: number; entrance: number | null }> },
): Promise<number> {
  const checker = await idOf(
    db
      .insertInto('checker')
      .values({
        mobile: v.mobile,
        password_hash: v.password === null ? 'x' : await hashPassword(v.password),
        name: v.name,
        merchant_id: owner.merchant,
        shop_id: owner.shop,
      })
      .returning('id'),
  );
  for (const post of v.posts)
    await db
      .insertInto('checker_relation')
      .values({
        checker_id: checker,
        sku_id: post.sku,
        entrance_id: post.entrance,
        merchant_id: owner.merchant,
        shop_id: owner.shop,
      })
      .execute();
  return checker;
}

/**
 * `count` active cards of `model`, numbered `prefix` + serial 1…count in 9 digits, active since
 * `activeDays` days ago and for 300 days more, each bound to a holder (name, phone, ID number).
 */
export async function makeBoundCards(
  db: Db,
  c: { model: number; prefix: string; count: number; activeDays: number },
): Promise<void> {
  await sql`insert into card (card_number, card_model_id, status, medium, active_time, expire_time)
    select ${c.prefix} || lpad(g::text, 9, '0'), ${c.model}, 2, 2, now() - make_interval(days => ${c.activeDays}::int), now() + interval '300 days'
    from generate_series(1, ${c.count}) g`.execute(db);
  await sql`insert into card_binding (card_id, name, phone, id_type, id_no)
    select id, 'Holder ' || id, '139' || lpad(id::text, 8, '0'), 1, 'ID' || id from card where card_model_id = ${c.model}`.execute(
    db,
  );
}

/** A verifier's access token through the app's login over HTTP (password, rate limit and all). */
export async function loginVerifier(url: string, mobile: string, password: string): Promise<string> {
  const login = await fetch(`${url}/app-api/auth/checkerLogin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mobile, password }),
  }).then((r) => r.json() as Promise<{ errcode: number; data: { accessToken: string } }>);
  if (login.errcode !== 0) throw new Error('bench verifier login failed');
  return login.data.accessToken;
}

/** A verifier's access token issued as a login issues it, without the password's argon2 round trip. */
export async function verifierToken(db: Db, store: Store, checker: number): Promise<string> {
  const account = (await loadCheckerAccount(db, checker))!;
  const tokens = new TokenService(db, store, { accessS: 3600, refreshS: 7200 });
  const issued = await tokens.issue(db, account, 'app', null);
  await tokens.remember(issued, account, 'app');
  return issued.accessToken;
}
