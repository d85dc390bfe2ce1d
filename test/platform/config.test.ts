import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig defaults (docs/architecture.md §7)', () => {
  it('puts backups under DATA_DIR unless BACKUP_DIR says where, and takes BACKUP_INTERVAL_HOURS=0 as off', () => {
    expect(loadConfig({ DATA_DIR: '/srv/tc' }).backup.dir).toBe(path.resolve('/srv/tc/backups'));
    expect(
      loadConfig({ DATA_DIR: '/srv/tc', BACKUP_DIR: '/mnt/backups', BACKUP_INTERVAL_HOURS: '0', BACKUP_KEEP: '30' })
        .backup,
    ).toEqual({ dir: path.resolve('/mnt/backups'), stagingDir: path.resolve('/srv/tc'), everyMs: 0, keep: 30 });
    expect(() => loadConfig({ BACKUP_KEEP: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ BACKUP_INTERVAL_HOURS: 'daily' })).toThrow(ConfigError);
  });

  it('takes DATABASE_QUERY_TIMEOUT_MS=0 as no bound', () => {
    expect(loadConfig({ DATABASE_QUERY_TIMEOUT_MS: '0', DATABASE_CONNECT_TIMEOUT_MS: '2000' })).toMatchObject({
      databaseQueryTimeoutMs: 0,
      databaseConnectTimeoutMs: 2000,
    });
  });

  it('reads given values and treats empty strings as unset', () => {
    const c = loadConfig({
      PORT: '9090',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/tc-data',
      DATABASE_URL: 'postgresql://u@db:5432/x',
      REDIS_URL: 'rediss://cache:6380',
      TZ: 'UTC',
      LOG_LEVEL: 'warn',
      ACCESS_TOKEN_TTL_S: '60',
      DATABASE_POOL_MAX: '40',
      DEMO: 'true',
      STORAGE: 's3',
      S3_BUCKET: 'b',
      S3_ACCESS_KEY: 'k',
      S3_SECRET_KEY: 's',
      OPEN_APP_KEY: 'key',
      OPEN_APP_SECRET: 'secret',
      CAPTCHA_BYPASS_CODE: '0000',
      ADMIN_PASSWORD: '',
    });
    expect(c).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      dataDir: '/tmp/tc-data',
      databaseUrl: 'postgresql://u@db:5432/x',
      redisUrl: 'rediss://cache:6380',
      tz: 'UTC',
      logLevel: 'warn',
      accessTokenTtlS: 60,
      databasePoolMax: 40,
      demo: true,
      storage: 's3',
      openAppKey: 'key',
      captchaBypassCode: '0000',
      adminPassword: null,
    });
    expect(c.s3.bucket).toBe('b');
  });
});

describe('bad values stop with one line naming the variable', () => {
  it.each([
    [{ PORT: 'abc' }, /^PORT must be a whole number/],
    [{ PORT: '70000' }, /^PORT must be between 0 and 65535/],
    [{ DATABASE_URL: 'mysql://root@localhost/x' }, /^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//],
    [{ DATABASE_URL: 'not a url' }, /^DATABASE_URL is not a valid URL/],
    [{ REDIS_URL: 'http://cache' }, /^REDIS_URL must start with redis:/],
    [{ DATABASE_POOL_MAX: '0' }, /^DATABASE_POOL_MAX must be between 1 and 1000/],
    [{ DATABASE_CONNECT_TIMEOUT_MS: '0' }, /^DATABASE_CONNECT_TIMEOUT_MS must be between 100 and 600000/],
    [{ DATABASE_QUERY_TIMEOUT_MS: '50' }, /^DATABASE_QUERY_TIMEOUT_MS must be 0 \(off\) or between 100 and 3600000/],
    [{ DATABASE_QUERY_TIMEOUT_MS: '3600001' }, /^DATABASE_QUERY_TIMEOUT_MS must be between 0 and 3600000/],
    [{ TZ: 'Mars/Phobos' }, /^TZ is not a known time zone: "Mars\/Phobos"/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of /],
    [
      { NODE_ENV: 'production', CAPTCHA_BYPASS_CODE: '0000' },
      /^CAPTCHA_BYPASS_CODE must not be set when NODE_ENV=production/,
    ],
    [{ NODE_ENV: 'production', SMS_BYPASS_CODE: '000000' }, /^SMS_BYPASS_CODE must not be set/],
    [{ STORAGE: 's3' }, /^S3_BUCKET is required when STORAGE=s3/],
    [{ STORAGE: 's3', S3_BUCKET: 'b' }, /^S3_ACCESS_KEY is required when STORAGE=s3/],
    [{ STORAGE: 'ftp' }, /^STORAGE must be one of local, s3/],
    [{ OPEN_APP_KEY: 'key' }, /^OPEN_APP_KEY and OPEN_APP_SECRET must be set together/],
    [{ OPEN_APP_SECRET: 'secret' }, /^OPEN_APP_KEY and OPEN_APP_SECRET/],
    [{ ACCESS_TOKEN_TTL_S: '-5' }, /^ACCESS_TOKEN_TTL_S must be a whole number/],
    [{ LOGIN_RATE_PER_MIN: '0' }, /^LOGIN_RATE_PER_MIN must be between 1 and/],
    [{ DEMO: 'maybe' }, /^DEMO must be 1\/0 or true\/false/],
    [{ ADMIN_PASSWORD: 'short' }, /^ADMIN_PASSWORD must be at least 8 characters/],
    [{ SMS_PROVIDER: 'aliyun' }, /^SMS_PROVIDER must be one of log, tencent, got "aliyun"/],
    [{ FACE_PROVIDER: 'baidu' }, /^FACE_PROVIDER must be one of local, tencent/],
    [
      { SMS_PROVIDER: 'tencent' },
      /^TENCENT_SECRET_ID, TENCENT_SECRET_KEY, TENCENT_SMS_SDK_APP_ID, TENCENT_SMS_SIGN_NAME, TENCENT_SMS_TEMPLATE_ID are required when SMS_PROVIDER=tencent$/,
    ],
    [
      {
        SMS_PROVIDER: 'tencent',
        TENCENT_SECRET_ID: 'id',
        TENCENT_SECRET_KEY: 'key',
        TENCENT_SMS_SDK_APP_ID: '1400006666',
        TENCENT_SMS_TEMPLATE_ID: '1',
      },
      /^TENCENT_SMS_SIGN_NAME is required when SMS_PROVIDER=tencent$/,
    ],
    [
      { FACE_PROVIDER: 'tencent', TENCENT_SECRET_ID: 'id' },
      /^TENCENT_SECRET_KEY is required when FACE_PROVIDER=tencent$/,
    ],
    [{ TENCENT_SMS_SDK_APP_ID: 'app' }, /^TENCENT_SMS_SDK_APP_ID must be the numeric SdkAppId/],
    [{ TENCENT_SMS_TEMPLATE_ID: 'T-1' }, /^TENCENT_SMS_TEMPLATE_ID must be a numeric template id/],
    [{ TENCENT_REGION: 'Guangzhou' }, /^TENCENT_REGION must look like ap-guangzhou/],
    [
      { TENCENT_SMS_ENDPOINT: 'ftp://sms.example.com' },
      /^TENCENT_SMS_ENDPOINT must be a host name or an http\(s\) origin without a path/,
    ],
    [
      { TENCENT_IAI_ENDPOINT: 'https://iai.example.com/v3' },
      /^TENCENT_IAI_ENDPOINT must be a host name or an http\(s\) origin/,
    ],
    [{ FACE_GROUP_ID: 'with space' }, /^FACE_GROUP_ID may hold 1-64 letters, digits and -%@#&_/],
    [{ FACE_MATCH_THRESHOLD: '0' }, /^FACE_MATCH_THRESHOLD must be between 1 and 100/],
    [{ FACE_MATCH_THRESHOLD: '85.5' }, /^FACE_MATCH_THRESHOLD must be a whole number/],
    [{ FACE_IMAGE_MAX_BYTES: '99999999' }, /^FACE_IMAGE_MAX_BYTES must be between 1024 and/],
  ])('%j', (env, message) => {
    let error: unknown;
    try {
      loadConfig(env as Record<string, string>);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as Error).message;
    expect(text).toMatch(message);
    expect(text).not.toContain('\n');
  });

  it('lets the bypass codes through outside production', () => {
    expect(loadConfig({ NODE_ENV: 'test', CAPTCHA_BYPASS_CODE: '0000' }).captchaBypassCode).toBe('0000');
  });
});

describe('SMS and face providers', () => {
  it('default to the log and the local registry, with the Tencent defaults in place', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      smsProvider: 'log',
      faceProvider: 'local',
      tencent: { secretId: null, secretKey: null, region: 'ap-guangzhou' },
      tencentSms: {
        endpoint: 'sms.tencentcloudapi.com',
        sdkAppId: null,
        signName: null,
        templateId: null,
        activationTemplateId: null,
      },
      tencentIai: { endpoint: 'iai.tencentcloudapi.com' },
      face: { groupId: 'tourism-card', matchThreshold: 80, imageMaxBytes: 3 * 1024 * 1024 },
    });
  });

  it('read the Tencent settings when chosen', () => {
    const c = loadConfig({
      SMS_PROVIDER: 'tencent',
      FACE_PROVIDER: 'tencent',
      TENCENT_SECRET_ID: 'AKID1',
      TENCENT_SECRET_KEY: 'key',
      TENCENT_REGION: 'ap-shanghai',
      TENCENT_SMS_ENDPOINT: 'http://127.0.0.1:9000/',
      TENCENT_SMS_SDK_APP_ID: '1400006666',
      TENCENT_SMS_SIGN_NAME: '畅游卡',
      TENCENT_SMS_TEMPLATE_ID: '449739',
      TENCENT_SMS_ACTIVATION_TEMPLATE_ID: '449740',
      TENCENT_IAI_ENDPOINT: 'iai.ap-shanghai.tencentcloudapi.com',
      FACE_GROUP_ID: 'cards_2026',
      FACE_MATCH_THRESHOLD: '90',
      FACE_IMAGE_MAX_BYTES: '1048576',
    });
    expect(c).toMatchObject({
      smsProvider: 'tencent',
      faceProvider: 'tencent',
      tencent: { secretId: 'AKID1', secretKey: 'key', region: 'ap-shanghai' },
      tencentSms: {
        endpoint: 'http://127.0.0.1:9000',
        sdkAppId: '1400006666',
        signName: '畅游卡',
        templateId: '449739',
        activationTemplateId: '449740',
      },
      tencentIai: { endpoint: 'iai.ap-shanghai.tencentcloudapi.com' },
      face: { groupId: 'cards_2026', matchThreshold: 90, imageMaxBytes: 1_048_576 },
    });
  });

  it('do not ask for Tencent settings of a provider that is not chosen', () => {
    expect(
      loadConfig({ FACE_PROVIDER: 'tencent', TENCENT_SECRET_ID: 'id', TENCENT_SECRET_KEY: 'key' }).smsProvider,
    ).toBe('log');
  });
});
