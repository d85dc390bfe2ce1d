import path from 'node:path';
import { createAddressPolicy } from './platform/face/photo-fetch.js';

/** Typed configuration read once from the environment (DESIGN.md §7). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL connections each instance may hold (PGlite has one) */
  databasePoolMax: number;
  /**
   * How long a request waits for a PostgreSQL connection (a new one to open, or a pooled one to come
   * free) before it answers 503.
   */
  databaseConnectTimeoutMs: number;
  /**
   * How long one statement of a request may run: the server cancels it then (statement_timeout),
   * and the client gives up a second later when no answer comes at all (a server or network gone
   * silent). 0 turns both off. Migrations and the statistics roll-up are not bound by it.
   */
  databaseQueryTimeoutMs: number;
  redisUrl: string | null;
  tz: string;
  logLevel: string;
  nodeEnv: string;
  adminUsername: string;
  adminPassword: string | null;
  captchaBypassCode: string | null;
  smsBypassCode: string | null;
  accessTokenTtlS: number;
  refreshTokenTtlS: number;
  /** how long a session may be kept parsed in process memory; 0 asks the store on every request */
  sessionLocalTtlS: number;
  storage: 'local' | 's3';
  s3: { endpoint: string | null; bucket: string | null; region: string | null; accessKey: string | null; secretKey: string | null };
  uploadMaxBytes: number;
  /** Public base of the file URLs uploads answer (scheme, host, any path prefix); unset → the request's own origin. */
  fileBaseUrl: string | null;
  /** login-free face-checked uploads per client address and minute */
  faceUploadRatePerMin: number;
  /** token-free file fetches (/open-api/oss/file) per client address and minute */
  fileFetchRatePerMin: number;
  /** file parts one multipart request may carry */
  uploadMaxFiles: number;
  faceProvider: 'local' | 'tencent';
  /** Face registry settings shared by both providers (the group is the Tencent IAI person group). */
  face: { groupId: string; matchThreshold: number; imageMaxBytes: number; photoAllowedHosts: string[] };
  smsProvider: 'log' | 'tencent';
  /** Tencent Cloud account, used by the SMS and face adapters when they are chosen. */
  tencent: { secretId: string | null; secretKey: string | null; region: string };
  tencentSms: {
    endpoint: string;
    sdkAppId: string | null;
    signName: string | null;
    /** Verification-code template: one parameter, the code. */
    templateId: string | null;
    /** Card-activation notice template (bank channel); notices of that kind are skipped while unset. */
    activationTemplateId: string | null;
  };
  tencentIai: { endpoint: string };
  demo: boolean;
  loginRatePerMin: number;
  captchaRatePerMin: number;
  openAppKey: string | null;
  openAppSecret: string | null;
  wechat: { baseUrl: string | null; appId: string | null; appSecret: string | null };
  /** Who turns a mini-program login code into an open id: WeChat, or the local stand-in (development, demo). */
  mpLoginProvider: 'local' | 'wechat';
  /** How long SIGTERM keeps serving with /readyz failing before it stops listening (load balancers). */
  shutdownDelayMs: number;
  /** Take the client address from X-Forwarded-For (only behind a trusted load balancer). */
  trustProxy: boolean;
  /**
   * Slow clients: the headers must arrive within `headersTimeoutMs` and the whole request within
   * `requestTimeoutMs` (uploads included); an idle keep-alive connection closes after `keepAliveTimeoutMs`.
   */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  /** Key prefix in the shared store, so several deployments (or test files) can share one Redis. */
  storePrefix: string;
  /** Backups the service takes of the embedded database (PGlite with a data directory only; src/platform/backup.ts). */
  backup: { dir: string; stagingDir: string; everyMs: number; keep: number };
}

/** Raised for a bad environment value; main prints its message as the one line the operator sees. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function opt(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const v = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${v}"`);
  }
  return v as T;
}

function bool(env: Env, name: string): boolean {
  const v = (env[name] ?? '').trim().toLowerCase();
  if (v === '' || v === '0' || v === 'false' || v === 'no') return false;
  if (v === '1' || v === 'true' || v === 'yes') return true;
  throw new ConfigError(`${name} must be 1/0 or true/false, got "${env[name]}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const v = opt(env, name);
  if (v === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => p + '//').join(' or ')}`);
  }
  return v;
}

/** A Tencent Cloud API endpoint: a host (`sms.tencentcloudapi.com`) or an http(s) origin (tests, proxies). */
function endpoint(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback);
  if (/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(v)) return v;
  let parsed: URL | null = null;
  try {
    parsed = new URL(v);
  } catch {
    // reported below
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search) {
    throw new ConfigError(`${name} must be a host name or an http(s) origin without a path, got "${v}"`);
  }
  return v.replace(/\/+$/, '');
}

function pattern(env: Env, name: string, fallback: string | null, re: RegExp, rule: string): string | null {
  const v = fallback === null ? opt(env, name) : str(env, name, fallback);
  if (v !== null && !re.test(v)) throw new ConfigError(`${name} ${rule}, got "${v}"`);
  return v;
}

function hostList(env: Env, name: string): string[] {
  const list = (opt(env, name) ?? '').split(',').map((h) => h.trim()).filter((h) => h !== '');
  try {
    createAddressPolicy(list);
  } catch (err) {
    throw new ConfigError(`${name} must list host names, addresses or CIDRs: ${(err as Error).message}`);
  }
  return list;
}

function requireAll(when: string, values: Record<string, string | null>): void {
  const missing = Object.entries(values).filter(([, v]) => !v).map(([k]) => k);
  if (missing.length > 0) throw new ConfigError(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required when ${when}`);
}

function timeZone(env: Env): string {
  const tz = str(env, 'TZ', 'Asia/Shanghai');
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    throw new ConfigError(`TZ is not a known time zone: "${tz}"`);
  }
  return tz;
}

/** 0 (off) or at least 100 ms: a bound of a few ms would refuse every request. */
function queryTimeout(env: Env): number {
  const ms = int(env, 'DATABASE_QUERY_TIMEOUT_MS', 30_000, 0, 3_600_000);
  if (ms > 0 && ms < 100) throw new ConfigError(`DATABASE_QUERY_TIMEOUT_MS must be 0 (off) or between 100 and 3600000, got ${ms}`);
  return ms;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = str(env, 'NODE_ENV', 'development');
  const captchaBypassCode = opt(env, 'CAPTCHA_BYPASS_CODE');
  const smsBypassCode = opt(env, 'SMS_BYPASS_CODE');
  if (nodeEnv === 'production' && captchaBypassCode) {
    throw new ConfigError('CAPTCHA_BYPASS_CODE must not be set when NODE_ENV=production');
  }
  if (nodeEnv === 'production' && smsBypassCode) {
    throw new ConfigError('SMS_BYPASS_CODE must not be set when NODE_ENV=production');
  }
  const storage = oneOf(env, 'STORAGE', 'local', ['local', 's3'] as const);
  const s3 = {
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    bucket: opt(env, 'S3_BUCKET'),
    region: opt(env, 'S3_REGION'),
    accessKey: opt(env, 'S3_ACCESS_KEY'),
    secretKey: opt(env, 'S3_SECRET_KEY'),
  };
  if (storage === 's3') {
    for (const [key, value] of Object.entries({ S3_BUCKET: s3.bucket, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey })) {
      if (!value) throw new ConfigError(`${key} is required when STORAGE=s3`);
    }
  }
  const openAppKey = opt(env, 'OPEN_APP_KEY');
  const openAppSecret = opt(env, 'OPEN_APP_SECRET');
  if ((openAppKey === null) !== (openAppSecret === null)) {
    throw new ConfigError('OPEN_APP_KEY and OPEN_APP_SECRET must be set together');
  }
  const adminPassword = opt(env, 'ADMIN_PASSWORD');
  if (adminPassword !== null && adminPassword.length < 8) {
    throw new ConfigError('ADMIN_PASSWORD must be at least 8 characters long');
  }
  const mpLoginProvider = oneOf(env, 'MP_LOGIN_PROVIDER', 'local', ['local', 'wechat'] as const);
  if (mpLoginProvider === 'wechat' && (!opt(env, 'WECHAT_APP_ID') || !opt(env, 'WECHAT_APP_SECRET'))) {
    throw new ConfigError('WECHAT_APP_ID and WECHAT_APP_SECRET are required when MP_LOGIN_PROVIDER=wechat');
  }
  // The local provider lets anyone who picks a code log in as that code's member: production must
  // choose it on purpose (a demo), never fall into it by default.
  if (nodeEnv === 'production' && opt(env, 'MP_LOGIN_PROVIDER') === null) {
    throw new ConfigError('MP_LOGIN_PROVIDER must be set when NODE_ENV=production (wechat, or local for a demo)');
  }
  const faceProvider = oneOf(env, 'FACE_PROVIDER', 'local', ['local', 'tencent'] as const);
  const smsProvider = oneOf(env, 'SMS_PROVIDER', 'log', ['log', 'tencent'] as const);
  const tencent = {
    secretId: opt(env, 'TENCENT_SECRET_ID'),
    secretKey: opt(env, 'TENCENT_SECRET_KEY'),
    region: pattern(env, 'TENCENT_REGION', 'ap-guangzhou', /^[a-z]{2,}(-[a-z0-9]+)+$/, 'must look like ap-guangzhou') as string,
  };
  const tencentSms = {
    endpoint: endpoint(env, 'TENCENT_SMS_ENDPOINT', 'sms.tencentcloudapi.com'),
    sdkAppId: pattern(env, 'TENCENT_SMS_SDK_APP_ID', null, /^\d{4,20}$/, 'must be the numeric SdkAppId (e.g. 1400006666)'),
    signName: opt(env, 'TENCENT_SMS_SIGN_NAME'),
    templateId: pattern(env, 'TENCENT_SMS_TEMPLATE_ID', null, /^\d{1,20}$/, 'must be a numeric template id'),
    activationTemplateId: pattern(env, 'TENCENT_SMS_ACTIVATION_TEMPLATE_ID', null, /^\d{1,20}$/, 'must be a numeric template id'),
  };
  if (smsProvider === 'tencent') {
    requireAll('SMS_PROVIDER=tencent', {
      TENCENT_SECRET_ID: tencent.secretId, TENCENT_SECRET_KEY: tencent.secretKey, TENCENT_SMS_SDK_APP_ID: tencentSms.sdkAppId,
      TENCENT_SMS_SIGN_NAME: tencentSms.signName, TENCENT_SMS_TEMPLATE_ID: tencentSms.templateId,
    });
  }
  if (faceProvider === 'tencent') {
    requireAll('FACE_PROVIDER=tencent', { TENCENT_SECRET_ID: tencent.secretId, TENCENT_SECRET_KEY: tencent.secretKey });
  }
  const face = {
    // Tencent's own rule for group ids, kept for the local registry so a switch of provider keeps the name.
    groupId: pattern(env, 'FACE_GROUP_ID', 'tourism-card', /^[A-Za-z0-9\-%@#&_]{1,64}$/, 'may hold 1-64 letters, digits and -%@#&_') as string,
    matchThreshold: int(env, 'FACE_MATCH_THRESHOLD', 80, 1, 100),
    // Tencent IAI takes at most 5 MB of base64: 3 MiB of image stays under it.
    imageMaxBytes: int(env, 'FACE_IMAGE_MAX_BYTES', 3 * 1024 * 1024, 1024, 3 * 1024 * 1024 + 512 * 1024),
    // Photo URLs reach public addresses only; these internal hosts too (host names, addresses, CIDRs).
    photoAllowedHosts: hostList(env, 'FACE_PHOTO_ALLOWED_HOSTS'),
  };
  const logLevel = oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const);
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'HOST', '127.0.0.1'),
    dataDir: path.resolve(str(env, 'DATA_DIR', './data')),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    databaseConnectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
    databaseQueryTimeoutMs: queryTimeout(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    tz: timeZone(env),
    logLevel,
    nodeEnv,
    adminUsername: str(env, 'ADMIN_USERNAME', 'admin'),
    adminPassword,
    captchaBypassCode,
    smsBypassCode,
    accessTokenTtlS: int(env, 'ACCESS_TOKEN_TTL_S', 1800, 10, 86400 * 30),
    refreshTokenTtlS: int(env, 'REFRESH_TOKEN_TTL_S', 2592000, 60, 86400 * 365),
    sessionLocalTtlS: int(env, 'SESSION_LOCAL_TTL_S', 10, 0, 3600),
    storage,
    s3,
    uploadMaxBytes: int(env, 'UPLOAD_MAX_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    fileBaseUrl: url(env, 'FILE_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
    faceUploadRatePerMin: int(env, 'FACE_UPLOAD_RATE_PER_MIN', 20, 1, 1_000_000),
    fileFetchRatePerMin: int(env, 'FILE_FETCH_RATE_PER_MIN', 600, 1, 1_000_000),
    uploadMaxFiles: int(env, 'UPLOAD_MAX_FILES', 5, 1, 100),
    faceProvider,
    face,
    smsProvider,
    tencent,
    tencentSms,
    tencentIai: { endpoint: endpoint(env, 'TENCENT_IAI_ENDPOINT', 'iai.tencentcloudapi.com') },
    demo: bool(env, 'DEMO'),
    loginRatePerMin: int(env, 'LOGIN_RATE_PER_MIN', 30, 1, 1_000_000),
    captchaRatePerMin: int(env, 'CAPTCHA_RATE_PER_MIN', 60, 1, 1_000_000),
    openAppKey,
    openAppSecret,
    wechat: {
      baseUrl: url(env, 'WECHAT_API_BASE', ['http:', 'https:']),
      appId: opt(env, 'WECHAT_APP_ID'),
      appSecret: opt(env, 'WECHAT_APP_SECRET'),
    },
    mpLoginProvider,
    trustProxy: bool(env, 'TRUST_PROXY'),
    http: {
      headersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 1_000, 600_000),
      requestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
      // above the 60 s idle timeout of common load balancers, so they close first
      keepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1_000, 600_000),
    },
    shutdownDelayMs: int(env, 'SHUTDOWN_DELAY_MS', 0, 0, 120_000),
    storePrefix: str(env, 'STORE_PREFIX', 'tc:'),
    backup: {
      dir: path.resolve(str(env, 'BACKUP_DIR', path.join(str(env, 'DATA_DIR', './data'), 'backups'))),
      stagingDir: path.resolve(str(env, 'DATA_DIR', './data')),
      everyMs: int(env, 'BACKUP_INTERVAL_HOURS', 24, 0, 24 * 365) * 60 * 60 * 1000,
      keep: int(env, 'BACKUP_KEEP', 7, 1, 1000),
    },
  };
}
