import path from 'node:path';
import { readEnv, type Env } from './config-schema.js';

/** Typed configuration read once from the environment (docs/operations.md §9). */
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
  /** The statement bound of reports (statistics and exports), when statements are bound at all. */
  databaseReportQueryTimeoutMs: number;
  /** How long a request's transaction may sit idle before the server ends it; 0 turns it off. */
  databaseIdleInTransactionTimeoutMs: number;
  /** A streaming replica for page, statistics and export reads (docs/adr/0101-reads-on-a-streaming-replica.md). */
  databaseRead: { url: string; poolMax: number; maxLagMs: number; checkEveryMs: number } | null;
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
  s3: {
    endpoint: string | null;
    bucket: string | null;
    region: string | null;
    accessKey: string | null;
    secretKey: string | null;
  };
  uploadMaxBytes: number;
  /** Public base of the file URLs uploads answer (scheme, host, any path prefix); unset → the request's own origin. */
  fileBaseUrl: string | null;
  /** login-free face-checked uploads per client address and minute */
  faceUploadRatePerMin: number;
  /** token-free file fetches (/open-api/oss/file) per client address and minute */
  fileFetchRatePerMin: number;
  /** file parts one multipart request may carry */
  uploadMaxFiles: number;
  /** admission streams (the live board) one instance keeps open at once */
  admissionStreamsMax: number;
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
  /** Months ahead whose partitions the history tables get (docs/adr/0100-history-tables-partitioned-by-month.md). */
  partitionMonthsAhead: number;
  /** Whole months the logs keep before the current one; 0 keeps everything (check records are never dropped). */
  logRetentionMonths: number;
  /** The offline packs of gates (docs/adr/0107-offline-pack-signed-ndjson-with-deltas.md): null key = kept in the database. */
  offlinePack: { signingKey: string | null; ttlHours: number };
}

/** Raised for a bad environment value; main prints its message as the one line the operator sees. */
export class ConfigError extends Error {}

function requireAll(when: string, values: Record<string, string | undefined>): void {
  const missing = Object.entries(values)
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length > 0)
    throw new ConfigError(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required when ${when}`);
}

/**
 * The environment, read and validated through the one schema of every variable (src/config-schema.ts,
 * whose descriptions are the tables of README.md and docs/operations.md); then the rules that tie
 * variables together, which a per-variable schema cannot say.
 */
export function loadConfig(env: Env = process.env): Config {
  const { values: v, set, problems } = readEnv(env);
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  const nodeEnv = v.NODE_ENV;
  if (nodeEnv === 'production' && v.CAPTCHA_BYPASS_CODE) {
    throw new ConfigError('CAPTCHA_BYPASS_CODE must not be set when NODE_ENV=production');
  }
  if (nodeEnv === 'production' && v.SMS_BYPASS_CODE) {
    throw new ConfigError('SMS_BYPASS_CODE must not be set when NODE_ENV=production');
  }
  if (v.STORAGE === 's3') {
    for (const [key, value] of Object.entries({
      S3_BUCKET: v.S3_BUCKET,
      S3_ACCESS_KEY: v.S3_ACCESS_KEY,
      S3_SECRET_KEY: v.S3_SECRET_KEY,
    })) {
      if (!value) throw new ConfigError(`${key} is required when STORAGE=s3`);
    }
  }
  // The embedded database has no replicas: a read URL without DATABASE_URL is a mistake, not a choice.
  if (v.DATABASE_READ_URL && !v.DATABASE_URL) {
    throw new ConfigError(
      'DATABASE_READ_URL needs DATABASE_URL (a replica of that PostgreSQL); PGlite has no replicas',
    );
  }
  if ((v.OPEN_APP_KEY === undefined) !== (v.OPEN_APP_SECRET === undefined)) {
    throw new ConfigError('OPEN_APP_KEY and OPEN_APP_SECRET must be set together');
  }
  if (v.MP_LOGIN_PROVIDER === 'wechat' && (!v.WECHAT_APP_ID || !v.WECHAT_APP_SECRET)) {
    throw new ConfigError('WECHAT_APP_ID and WECHAT_APP_SECRET are required when MP_LOGIN_PROVIDER=wechat');
  }
  // The local provider lets anyone who picks a code log in as that code's member: production must
  // choose it on purpose (a demo), never fall into it by default.
  if (nodeEnv === 'production' && !set.has('MP_LOGIN_PROVIDER')) {
    throw new ConfigError('MP_LOGIN_PROVIDER must be set when NODE_ENV=production (wechat, or local for a demo)');
  }
  if (v.SMS_PROVIDER === 'tencent') {
    requireAll('SMS_PROVIDER=tencent', {
      TENCENT_SECRET_ID: v.TENCENT_SECRET_ID,
      TENCENT_SECRET_KEY: v.TENCENT_SECRET_KEY,
      TENCENT_SMS_SDK_APP_ID: v.TENCENT_SMS_SDK_APP_ID,
      TENCENT_SMS_SIGN_NAME: v.TENCENT_SMS_SIGN_NAME,
      TENCENT_SMS_TEMPLATE_ID: v.TENCENT_SMS_TEMPLATE_ID,
    });
  }
  if (v.FACE_PROVIDER === 'tencent') {
    requireAll('FACE_PROVIDER=tencent', {
      TENCENT_SECRET_ID: v.TENCENT_SECRET_ID,
      TENCENT_SECRET_KEY: v.TENCENT_SECRET_KEY,
    });
  }
  const orNull = <T>(value: T | undefined): T | null => value ?? null;
  return {
    port: v.PORT,
    host: v.HOST,
    dataDir: path.resolve(v.DATA_DIR),
    databaseUrl: orNull(v.DATABASE_URL),
    databasePoolMax: v.DATABASE_POOL_MAX,
    databaseConnectTimeoutMs: v.DATABASE_CONNECT_TIMEOUT_MS,
    databaseQueryTimeoutMs: v.DATABASE_QUERY_TIMEOUT_MS,
    databaseReportQueryTimeoutMs: v.DATABASE_REPORT_QUERY_TIMEOUT_MS,
    databaseIdleInTransactionTimeoutMs: v.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    databaseRead: v.DATABASE_READ_URL
      ? {
          url: v.DATABASE_READ_URL,
          poolMax: v.DATABASE_READ_POOL_MAX,
          maxLagMs: v.DATABASE_READ_MAX_LAG_MS,
          checkEveryMs: v.DATABASE_READ_LAG_CHECK_MS,
        }
      : null,
    redisUrl: orNull(v.REDIS_URL),
    tz: v.TZ,
    logLevel: v.LOG_LEVEL,
    nodeEnv,
    adminUsername: v.ADMIN_USERNAME,
    adminPassword: orNull(v.ADMIN_PASSWORD),
    captchaBypassCode: orNull(v.CAPTCHA_BYPASS_CODE),
    smsBypassCode: orNull(v.SMS_BYPASS_CODE),
    accessTokenTtlS: v.ACCESS_TOKEN_TTL_S,
    refreshTokenTtlS: v.REFRESH_TOKEN_TTL_S,
    sessionLocalTtlS: v.SESSION_LOCAL_TTL_S,
    storage: v.STORAGE,
    s3: {
      endpoint: orNull(v.S3_ENDPOINT),
      bucket: orNull(v.S3_BUCKET),
      region: orNull(v.S3_REGION),
      accessKey: orNull(v.S3_ACCESS_KEY),
      secretKey: orNull(v.S3_SECRET_KEY),
    },
    uploadMaxBytes: v.UPLOAD_MAX_BYTES,
    fileBaseUrl: v.FILE_BASE_URL?.replace(/\/+$/, '') ?? null,
    faceUploadRatePerMin: v.FACE_UPLOAD_RATE_PER_MIN,
    fileFetchRatePerMin: v.FILE_FETCH_RATE_PER_MIN,
    uploadMaxFiles: v.UPLOAD_MAX_FILES,
    admissionStreamsMax: v.ADMISSION_STREAMS_MAX,
    faceProvider: v.FACE_PROVIDER,
    face: {
      groupId: v.FACE_GROUP_ID,
      matchThreshold: v.FACE_MATCH_THRESHOLD,
      imageMaxBytes: v.FACE_IMAGE_MAX_BYTES,
      photoAllowedHosts: v.FACE_PHOTO_ALLOWED_HOSTS ?? [],
    },
    smsProvider: v.SMS_PROVIDER,
    tencent: {
      secretId: orNull(v.TENCENT_SECRET_ID),
      secretKey: orNull(v.TENCENT_SECRET_KEY),
      region: v.TENCENT_REGION,
    },
    tencentSms: {
      // an origin is kept without its trailing slash
      endpoint: v.TENCENT_SMS_ENDPOINT.replace(/\/+$/, ''),
      sdkAppId: orNull(v.TENCENT_SMS_SDK_APP_ID),
      signName: orNull(v.TENCENT_SMS_SIGN_NAME),
      templateId: orNull(v.TENCENT_SMS_TEMPLATE_ID),
      activationTemplateId: orNull(v.TENCENT_SMS_ACTIVATION_TEMPLATE_ID),
    },
    tencentIai: { endpoint: v.TENCENT_IAI_ENDPOINT.replace(/\/+$/, '') },
    demo: v.DEMO,
    loginRatePerMin: v.LOGIN_RATE_PER_MIN,
    captchaRatePerMin: v.CAPTCHA_RATE_PER_MIN,
    openAppKey: orNull(v.OPEN_APP_KEY),
    openAppSecret: orNull(v.OPEN_APP_SECRET),
    wechat: {
      baseUrl: orNull(v.WECHAT_API_BASE),
      appId: orNull(v.WECHAT_APP_ID),
      appSecret: orNull(v.WECHAT_APP_SECRET),
    },
    mpLoginProvider: v.MP_LOGIN_PROVIDER,
    trustProxy: v.TRUST_PROXY,
    http: {
      headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    shutdownDelayMs: v.SHUTDOWN_DELAY_MS,
    storePrefix: v.STORE_PREFIX,
    backup: {
      dir: path.resolve(v.BACKUP_DIR ?? path.join(v.DATA_DIR, 'backups')),
      stagingDir: path.resolve(v.DATA_DIR),
      everyMs: v.BACKUP_INTERVAL_HOURS * 60 * 60 * 1000,
      keep: v.BACKUP_KEEP,
    },
    partitionMonthsAhead: v.PARTITION_MONTHS_AHEAD,
    logRetentionMonths: v.LOG_RETENTION_MONTHS,
    offlinePack: { signingKey: v.OFFLINE_PACK_SIGNING_KEY ?? null, ttlHours: v.OFFLINE_PACK_TTL_HOURS },
  };
}
