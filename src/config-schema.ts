import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { createAddressPolicy } from './platform/face/photo-fetch.js';
import { readEd25519Key } from './platform/signing/ed25519.js';

/**
 * Every environment variable the service reads, in one TypeBox schema: its type, default, allowed
 * values and the one-line description the configuration tables of README.md and docs/operations.md
 * are generated from (scripts/config-docs.ts). src/config.ts reads the environment through it only.
 *
 * The schema describes the values after reading (PORT is an integer, DEMO a boolean), so its
 * keywords (minimum, maximum, enum, pattern, default) are what TypeBox checks and what the docs show.
 * The strings of the environment are turned into those values by `readEnv` below, strictly: TypeBox's
 * own Value.Convert would take `1e3` or `85.5` for an integer, which the service has always refused.
 */

/** What the docs tables need beyond the JSON Schema keywords. */
export interface EnvDoc {
  /** Commonly set: also listed in README.md's short table. */
  common?: boolean;
  /** The default column when there is no static default: what leaving it unset means. */
  unset?: string;
  /** The allowed-values column when the keywords alone do not say it. */
  allowed?: string;
  /** Set for a variable read before the service's code runs, by this reader. */
  readBy?: string;
}

/** Extra keywords of this schema: `rule` completes a pattern's error message, `protocols` a URL's. */
interface EnvKeywords extends EnvDoc {
  rule?: string;
  protocols?: string[];
}

export type Env = Record<string, string | undefined>;

const MiB = 1024 * 1024;
const UNLIMITED_RATE = 1_000_000;

function int(description: string, def: number, minimum: number, maximum: number | undefined, doc: EnvKeywords = {}) {
  return Type.Integer({ description, default: def, minimum, ...(maximum === undefined ? {} : { maximum }), ...doc });
}

function text(description: string, def: string, doc: EnvKeywords = {}) {
  return Type.String({ description, default: def, ...doc });
}

function optionalText(description: string, doc: EnvKeywords = {}) {
  return Type.Optional(Type.String({ description, ...doc }));
}

function oneOf<const V extends string[]>(description: string, values: [...V], def: V[number], doc: EnvKeywords = {}) {
  return Type.Enum(values, { description, default: def, ...doc });
}

function flag(description: string, doc: EnvKeywords = {}) {
  return Type.Boolean({ description, default: false, ...doc });
}

function url(description: string, protocols: string[], doc: EnvKeywords = {}) {
  const problem = (v: string): string | null => {
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      return 'is not a valid URL';
    }
    return protocols.includes(parsed.protocol)
      ? null
      : `must start with ${protocols.map((p) => p + '//').join(' or ')}`;
  };
  return Type.Optional(
    Type.Refine(
      Type.String({ description, protocols, ...doc }),
      (v) => problem(v) === null,
      (v) => problem(v) ?? '',
    ),
  );
}

/** A pattern the value must match; `rule` is what its error message says (`TENCENT_REGION must look like ap-guangzhou`). */
function patterned(
  description: string,
  def: string | undefined,
  pattern: string,
  rule: string,
  allowed: string,
  doc: EnvKeywords = {},
) {
  const schema = Type.String({
    description,
    pattern,
    rule,
    allowed,
    ...(def === undefined ? {} : { default: def }),
    ...doc,
  });
  return def === undefined ? Type.Optional(schema) : schema;
}

const ENDPOINT = 'a host name or an http(s) origin without a path';

/** A Tencent Cloud API endpoint: a host (`sms.tencentcloudapi.com`) or an http(s) origin (tests, proxies). */
function endpoint(description: string, def: string) {
  const valid = (v: string): boolean => {
    if (/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(v)) return true;
    try {
      const parsed = new URL(v);
      return (
        ['http:', 'https:'].includes(parsed.protocol) &&
        (parsed.pathname === '/' || parsed.pathname === '') &&
        !parsed.search
      );
    } catch {
      return false;
    }
  };
  return Type.Refine(
    Type.String({ description, default: def, allowed: ENDPOINT }),
    valid,
    (v) => `must be ${ENDPOINT}, got "${v}"`,
  );
}

function timeZone(description: string, def: string, doc: EnvKeywords) {
  const known = (tz: string): boolean => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  };
  return Type.Refine(
    text(description, def, { allowed: 'an IANA time zone name', ...doc }),
    known,
    (tz) => `is not a known time zone: "${tz}"`,
  );
}

/** Comma-separated in the environment. */
function hostList(description: string, doc: EnvKeywords) {
  const problem = (list: string[]): string | null => {
    try {
      createAddressPolicy(list);
      return null;
    } catch (err) {
      return `must list host names, addresses or CIDRs: ${(err as Error).message}`;
    }
  };
  return Type.Optional(
    Type.Refine(
      Type.Array(Type.String(), { description, ...doc }),
      (v) => problem(v) === null,
      (v) => problem(v) ?? '',
    ),
  );
}

const QUERY_TIMEOUT_MAX = 3_600_000;

export const EnvSchema = Type.Object({
  // Where and how the process runs
  PORT: int('TCP port to listen on', 8080, 0, 65535, { common: true }),
  HOST: text(
    'address to listen on: `0.0.0.0` (or the interface the load balancer reaches) to be reachable from other hosts',
    '127.0.0.1',
    { common: true },
  ),
  NODE_ENV: text(
    '`production` refuses `CAPTCHA_BYPASS_CODE` and `SMS_BYPASS_CODE` and requires `MP_LOGIN_PROVIDER` to be set',
    'development',
    { common: true, allowed: 'any; `production` is the one with effects' },
  ),
  TZ: timeZone('service time zone of every wire date and of the SQL date arithmetic', 'Asia/Shanghai', {
    common: true,
  }),
  LOG_LEVEL: oneOf(
    'level of the JSON log lines on stdout (pino); `info` logs every request',
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    'info',
    { common: true },
  ),
  NODE_HEAP_MB: int(
    "V8's old-space limit of `npm start` (`--max-old-space-size`): every large answer is streamed, and without a limit V8 lets garbage grow the heap (a 1M-row export peaked at 284 MB RSS, 171 MB with the limit)",
    192,
    0,
    undefined,
    { common: true, readBy: "package.json's start script, before the service starts" },
  ),
  SHUTDOWN_DELAY_MS: int(
    "on SIGTERM, `/readyz` answers 503 this long before the instance stops listening (set it above the load balancer's check interval × its failure threshold)",
    0,
    0,
    120_000,
    { common: true },
  ),
  TRUST_PROXY: flag(
    'take the client address from `X-Forwarded-For` (only behind a trusted load balancer that replaces that header)',
    { common: true },
  ),
  HTTP_HEADERS_TIMEOUT_MS: int("a client's request headers must arrive within this", 20_000, 1_000, 600_000),
  HTTP_REQUEST_TIMEOUT_MS: int(
    "a client's whole request (uploads included) must arrive within this",
    120_000,
    1_000,
    3_600_000,
  ),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(
    "an idle keep-alive connection closes after this (keep it above the load balancer's idle timeout)",
    65_000,
    1_000,
    600_000,
  ),
  DEMO: flag('seed the demo data set on an empty database', { common: true }),

  // Database and shared store
  DATA_DIR: text('PGlite database (`pglite/`), local files (`files/`) and upload temporaries (`tmp/`)', './data', {
    common: true,
    allowed: 'a directory',
  }),
  DATABASE_URL: url('PostgreSQL (≥ 14) to use instead of the embedded PGlite', ['postgres:', 'postgresql:'], {
    common: true,
    unset: 'PGlite in `DATA_DIR`',
  }),
  DATABASE_POOL_MAX: int(
    "PostgreSQL connections per instance, plus up to 2 for migrations and the statistics roll-up (instances × (this + 2) must stay under the server's `max_connections`)",
    10,
    1,
    1000,
    { common: true },
  ),
  DATABASE_CONNECT_TIMEOUT_MS: int(
    'longest wait for a PostgreSQL connection (a new one, or a pooled one coming free) before the request answers 503',
    5_000,
    100,
    600_000,
  ),
  // 0 (off) or at least 100 ms: a bound of a few ms would refuse every request.
  DATABASE_QUERY_TIMEOUT_MS: Type.Refine(
    int(
      "a request's statement is cancelled by the server after this and given up by the client 1 s later (503); `0` turns the bound off",
      30_000,
      0,
      QUERY_TIMEOUT_MAX,
      { allowed: `\`0\` (off) or 100–${QUERY_TIMEOUT_MAX}` },
    ),
    (ms) => ms === 0 || ms >= 100,
    (ms) => `must be 0 (off) or between 100 and ${QUERY_TIMEOUT_MAX}, got ${ms}`,
  ),
  DATABASE_REPORT_QUERY_TIMEOUT_MS: int(
    'the statement bound of reports (statistics and exports) in place of `DATABASE_QUERY_TIMEOUT_MS`, and off with it',
    120_000,
    100,
    QUERY_TIMEOUT_MAX,
  ),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: Type.Refine(
    int(
      "the server ends a request's transaction left idle this long (its locks go with it, the request answers 503); `0` turns the bound off",
      30_000,
      0,
      QUERY_TIMEOUT_MAX,
      { allowed: `\`0\` (off) or 100–${QUERY_TIMEOUT_MAX}` },
    ),
    (ms) => ms === 0 || ms >= 100,
    (ms) => `must be 0 (off) or between 100 and ${QUERY_TIMEOUT_MAX}, got ${ms}`,
  ),
  DATABASE_READ_URL: url(
    'a streaming replica of `DATABASE_URL`: page, statistics and export reads go there while it is within `DATABASE_READ_MAX_LAG_MS`',
    ['postgres:', 'postgresql:'],
    { unset: 'every read on `DATABASE_URL`' },
  ),
  DATABASE_READ_POOL_MAX: int('connections to the read replica per instance', 10, 1, 1000),
  DATABASE_READ_MAX_LAG_MS: int(
    "the read replica is skipped (reads go to the primary) while it is further behind than this; also how long a session's reads stay on the primary after it wrote",
    5_000,
    100,
    600_000,
  ),
  DATABASE_READ_LAG_CHECK_MS: int("how often each instance checks the read replica's lag", 500, 50, 60_000),
  REDIS_URL: url(
    'Redis holding sessions, captcha and SMS codes, nonces, rate limits and cache invalidation, shared by every instance',
    ['redis:', 'rediss:'],
    { common: true, unset: 'in-process store (one instance only)' },
  ),
  STORE_PREFIX: text(
    'prefix of every Redis key and channel: the same for every instance of a deployment, different for deployments sharing one Redis',
    'tc:',
  ),
  BACKUP_INTERVAL_HOURS: int(
    'the embedded database backs itself up while it runs when its newest backup is this old; `0` turns backups off; ignored on PostgreSQL',
    24,
    0,
    24 * 365,
    { common: true },
  ),
  BACKUP_KEEP: int('embedded-database backups kept (the newest)', 7, 1, 1000),
  BACKUP_DIR: optionalText('where the embedded database writes its backups (put it on another disk)', {
    unset: '`DATA_DIR/backups`',
    allowed: 'a directory',
  }),
  PARTITION_MONTHS_AHEAD: int(
    'months after the current one whose partitions of the check records and logs the service makes ahead (hourly and at start)',
    3,
    1,
    24,
  ),
  LOG_RETENTION_MONTHS: int(
    'the operation, login and failed-scan logs keep this many whole months before the current one, older months are dropped hourly; `0` keeps everything; check records are never dropped',
    0,
    0,
    1200,
  ),

  // Logins and sessions
  ADMIN_USERNAME: text('login of the bootstrap administrator, created only on an empty database', 'admin', {
    common: true,
  }),
  ADMIN_PASSWORD: Type.Optional(
    Type.Refine(
      Type.String({
        description: "the bootstrap administrator's password, used only on an empty database",
        common: true,
        unset: 'generated, printed once at the first start',
        allowed: 'at least 8 characters',
      }),
      (v) => v.length >= 8,
      () => 'must be at least 8 characters long',
    ),
  ),
  ACCESS_TOKEN_TTL_S: int('access-token lifetime, seconds', 1800, 10, 86400 * 30),
  REFRESH_TOKEN_TTL_S: int('refresh-token lifetime, seconds', 2_592_000, 60, 86400 * 365),
  SESSION_LOCAL_TTL_S: int(
    'how long an instance keeps a session parsed in memory, seconds; `0` asks the store on every request. A session ended anywhere is dropped on every instance at once through Redis publish/subscribe; this bounds what a lost message can leave (while upgrading from a version without it, set `0` until every instance runs this one)',
    10,
    0,
    3600,
  ),
  LOGIN_RATE_PER_MIN: int('logins per client address (and per account) and minute', 30, 1, UNLIMITED_RATE),
  CAPTCHA_RATE_PER_MIN: int('captcha images per client address and minute', 60, 1, UNLIMITED_RATE),
  CAPTCHA_BYPASS_CODE: optionalText('test aid: a captcha answer always accepted; refused when `NODE_ENV=production`'),
  SMS_BYPASS_CODE: optionalText('test aid: an SMS code always accepted; refused when `NODE_ENV=production`'),
  OPEN_APP_KEY: optionalText(
    'key of the bootstrap app of the signed open channel (set together with `OPEN_APP_SECRET`)',
  ),
  OPEN_APP_SECRET: optionalText(
    'secret of the bootstrap app of the signed open channel (set together with `OPEN_APP_KEY`)',
  ),
  MP_LOGIN_PROVIDER: oneOf(
    'who turns a mini-program login code into an open id: `local` (a stable open id per code; development, demo) or `wechat` (`WECHAT_APP_ID` and `WECHAT_APP_SECRET` required); must be set when `NODE_ENV=production`',
    ['local', 'wechat'],
    'local',
    { common: true },
  ),
  WECHAT_APP_ID: optionalText('mini-program app id (`MP_LOGIN_PROVIDER=wechat`)'),
  WECHAT_APP_SECRET: optionalText('mini-program app secret (`MP_LOGIN_PROVIDER=wechat`)'),
  WECHAT_API_BASE: url('WeChat API base (a proxy, a test server)', ['http:', 'https:'], {
    unset: '`https://api.weixin.qq.com`',
  }),

  // Offline gates
  OFFLINE_PACK_SIGNING_KEY: Type.Optional(
    Type.Refine(
      Type.String({
        description:
          'the Ed25519 private key offline packs are signed with (PKCS#8 PEM, or base64 of the DER bytes); the same on every instance; a new key is a rotation (docs/operations.md §2)',
        unset: 'a key made once and kept in the database',
        allowed: 'an Ed25519 PKCS#8 key',
      }),
      (v) => {
        try {
          readEd25519Key(v);
          return true;
        } catch {
          return false;
        }
      },
      () => 'must be an Ed25519 private key in PKCS#8 (PEM, or base64 of the DER bytes)',
    ),
  ),
  OFFLINE_PACK_TTL_HOURS: int(
    'how long a gate may decide on an offline pack before it must fetch a fresh one',
    24,
    1,
    168,
  ),

  // Files
  STORAGE: oneOf(
    'where uploaded files live: `local` (`DATA_DIR/files`, one instance) or `s3`, an S3-compatible bucket (`S3_BUCKET`, `S3_ACCESS_KEY`, `S3_SECRET_KEY` required)',
    ['local', 's3'],
    'local',
    { common: true },
  ),
  S3_ENDPOINT: url('S3-compatible server other than AWS (path-style addressing)', ['http:', 'https:'], {
    unset: 'AWS',
  }),
  S3_BUCKET: optionalText('bucket of the uploaded files (`STORAGE=s3`)'),
  S3_REGION: optionalText('region of the bucket', { unset: '`us-east-1`' }),
  S3_ACCESS_KEY: optionalText('access key of the bucket (`STORAGE=s3`)'),
  S3_SECRET_KEY: optionalText('secret key of the bucket (`STORAGE=s3`)'),
  UPLOAD_MAX_BYTES: int(
    'largest file one upload may carry, and largest chunk of a multipart upload',
    20 * MiB,
    1024,
    1024 * MiB,
  ),
  UPLOAD_MAX_FILES: int('file parts one multipart request may carry', 5, 1, 100),
  ADMISSION_STREAMS_MAX: int(
    'admission streams (`/manage-api/checker/admissionStream`, the live board) one instance keeps open at once; more are refused with 429',
    200,
    1,
    100_000,
  ),
  FILE_BASE_URL: url(
    'public base of the file URLs uploads answer (`https://api.example.com`, with any path prefix the proxy adds): `<base>/open-api/oss/file?fileKey=…`, fetched without a token and cached a year by browsers, privately; also the server address `/openapi.json` gives (else `http://HOST:PORT`)',
    ['http:', 'https:'],
    { common: true, unset: "the request's own origin" },
  ),
  FILE_FETCH_RATE_PER_MIN: int(
    'token-free file fetches (`/open-api/oss/file`) per client address and minute',
    600,
    1,
    UNLIMITED_RATE,
  ),
  FACE_UPLOAD_RATE_PER_MIN: int(
    'login-free face-checked uploads (`/open-api/oss/uploadWithFaceCheck`) per client address and minute',
    20,
    1,
    UNLIMITED_RATE,
  ),

  // SMS and face providers
  SMS_PROVIDER: oneOf(
    '`log` (messages and codes go to the log at info; nothing is sent) or `tencent` (Tencent Cloud SMS)',
    ['log', 'tencent'],
    'log',
    { common: true },
  ),
  FACE_PROVIDER: oneOf(
    '`local` (a face registry in the database, matching by photo content) or `tencent` (Tencent Cloud IAI)',
    ['local', 'tencent'],
    'local',
    { common: true },
  ),
  TENCENT_SECRET_ID: optionalText('Tencent Cloud account of the SMS and face adapters (required by either)'),
  TENCENT_SECRET_KEY: optionalText('its secret key (required by either adapter)'),
  TENCENT_REGION: patterned(
    'Tencent Cloud region of both adapters',
    'ap-guangzhou',
    '^[a-z]{2,}(-[a-z0-9]+)+$',
    'must look like ap-guangzhou',
    'a region like `ap-shanghai`',
  ),
  TENCENT_SMS_ENDPOINT: endpoint('Tencent SMS API endpoint', 'sms.tencentcloudapi.com'),
  TENCENT_SMS_SDK_APP_ID: patterned(
    'SMS application (`SMS_PROVIDER=tencent`)',
    undefined,
    '^\\d{4,20}$',
    'must be the numeric SdkAppId (e.g. 1400006666)',
    'the numeric SdkAppId',
  ),
  TENCENT_SMS_SIGN_NAME: optionalText('SMS signature (`SMS_PROVIDER=tencent`)'),
  TENCENT_SMS_TEMPLATE_ID: patterned(
    'verification-code template, one parameter: the code (`SMS_PROVIDER=tencent`)',
    undefined,
    '^\\d{1,20}$',
    'must be a numeric template id',
    'a numeric template id',
  ),
  TENCENT_SMS_ACTIVATION_TEMPLATE_ID: patterned(
    'card-activation notice template (parameters: card name, card number); unset, such notices are logged, not sent',
    undefined,
    '^\\d{1,20}$',
    'must be a numeric template id',
    'a numeric template id',
  ),
  TENCENT_IAI_ENDPOINT: endpoint('Tencent face recognition (IAI) API endpoint', 'iai.tencentcloudapi.com'),
  // Tencent's own rule for group ids, kept for the local registry so a switch of provider keeps the name.
  FACE_GROUP_ID: patterned(
    'face person group (Tencent IAI; the local registry uses the same name)',
    'tourism-card',
    '^[A-Za-z0-9\\-%@#&_]{1,64}$',
    'may hold 1-64 letters, digits and -%@#&_',
    '1–64 letters, digits and `-%@#&_`',
  ),
  FACE_MATCH_THRESHOLD: int('least search score counted as a match', 80, 1, 100),
  // Tencent IAI takes at most 5 MB of base64: 3 MiB of image stays under it.
  FACE_IMAGE_MAX_BYTES: int('largest face photo read', 3 * MiB, 1024, 3 * MiB + 512 * 1024),
  FACE_PHOTO_ALLOWED_HOSTS: hostList(
    "photo URLs (contacts, face check-in, bindCard) reach public addresses only, and these internal hosts (`photos.internal,10.8.0.0/16`); the storage's own file URLs need no entry",
    { unset: 'public addresses only', allowed: 'comma-separated host names, addresses, CIDRs' },
  ),
});

export type EnvValues = Static<typeof EnvSchema>;
export type EnvName = keyof EnvValues & string;

export const ENV_NAMES = Object.keys(EnvSchema.properties) as EnvName[];

/** The JSON Schema of one variable as the docs and the messages read it, with this file's extra keywords. */
export interface EnvVariableSchema extends EnvKeywords {
  type?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  pattern?: string;
  [keyword: string]: unknown;
}

export function envSchemaOf(name: EnvName): EnvVariableSchema {
  return EnvSchema.properties[name] as unknown as EnvVariableSchema;
}

/** Unset or empty: an empty value counts as unset, as it always has. */
function isUnset(raw: string | undefined): raw is undefined | '' {
  return raw === undefined || raw === '';
}

/** One variable's string as the schema's type; a string that is not of that type yields its message. */
function readValue(schema: EnvVariableSchema, raw: string): { value: unknown } | { problem: string } {
  switch (schema.type) {
    case 'integer':
      // Whole numbers only: no sign, no exponent, no fraction (`85.5`, `-5`, `1e3` are refused).
      if (!/^\d+$/.test(raw.trim())) return { problem: `must be a whole number, got "${raw}"` };
      return { value: Number(raw.trim()) };
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (v === '' || v === '0' || v === 'false' || v === 'no') return { value: false };
      if (v === '1' || v === 'true' || v === 'yes') return { value: true };
      return { problem: `must be 1/0 or true/false, got "${raw}"` };
    }
    case 'array':
      return {
        value: raw
          .split(',')
          .map((h) => h.trim())
          .filter((h) => h !== ''),
      };
    default:
      return { value: raw };
  }
}

/** The message of a value the schema refuses, without the variable's name. */
function explain(error: { keyword: string; message: string }, schema: EnvVariableSchema, value: unknown): string {
  switch (error.keyword) {
    case 'minimum':
    case 'maximum':
      return schema.maximum === undefined
        ? `must be at least ${schema.minimum}, got ${value}`
        : `must be between ${schema.minimum} and ${schema.maximum}, got ${value}`;
    case 'enum':
      return `must be one of ${(schema.enum ?? []).join(', ')}, got "${value}"`;
    case 'pattern':
      return `${schema.rule}, got "${value}"`;
    default:
      // ~refine: the refinement's own message
      return error.message;
  }
}

export interface ReadEnv {
  /** every variable, its default in place when unset */
  values: EnvValues;
  /** the variables given a (non-empty) value */
  set: ReadonlySet<EnvName>;
  /** one message per refused variable, each starting with its name */
  problems: string[];
}

/**
 * Reads the variables of the schema from `env` (and no other), checks them against it and fills in
 * its defaults. Nothing is thrown: src/config.ts turns the problems into its one-line ConfigError.
 */
export function readEnv(env: Env): ReadEnv {
  const given: Record<string, unknown> = {};
  const set = new Set<EnvName>();
  const problems = new Map<EnvName, string>();
  for (const name of ENV_NAMES) {
    const raw = env[name];
    if (isUnset(raw)) continue;
    set.add(name);
    const read = readValue(envSchemaOf(name), raw);
    if ('problem' in read) problems.set(name, `${name} ${read.problem}`);
    else given[name] = read.value;
  }
  const values = Value.Default(EnvSchema, given) as EnvValues;
  for (const error of Value.Errors(EnvSchema, values)) {
    const name = error.instancePath.slice(1) as EnvName;
    // The first error of a variable says it; a refinement's would repeat what a range said.
    if (!ENV_NAMES.includes(name) || problems.has(name)) continue;
    problems.set(name, `${name} ${explain(error, envSchemaOf(name), values[name])}`);
  }
  return { values, set, problems: [...problems.values()] };
}
