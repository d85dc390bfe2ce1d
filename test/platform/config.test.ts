import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig defaults (DESIGN.md §7)', () => {
  it('runs with nothing set', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: null,
      redisUrl: null,
      tz: 'Asia/Shanghai',
      logLevel: 'info',
      nodeEnv: 'development',
      adminUsername: 'admin',
      adminPassword: null,
      captchaBypassCode: null,
      smsBypassCode: null,
      accessTokenTtlS: 1800,
      refreshTokenTtlS: 2_592_000,
      storage: 'local',
      uploadMaxBytes: 20 * 1024 * 1024,
      faceProvider: 'local',
      smsProvider: 'log',
      demo: false,
      loginRatePerMin: 30,
      captchaRatePerMin: 60,
      openAppKey: null,
      openAppSecret: null,
      trustProxy: false,
    });
  });

  it('reads given values and treats empty strings as unset', () => {
    const c = loadConfig({
      PORT: '9090', HOST: '0.0.0.0', DATA_DIR: '/tmp/tc-data', DATABASE_URL: 'postgresql://u@db:5432/x', REDIS_URL: 'rediss://cache:6380',
      TZ: 'UTC', LOG_LEVEL: 'warn', ACCESS_TOKEN_TTL_S: '60', DEMO: 'true', STORAGE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY: 'k', S3_SECRET_KEY: 's',
      OPEN_APP_KEY: 'key', OPEN_APP_SECRET: 'secret', CAPTCHA_BYPASS_CODE: '0000', ADMIN_PASSWORD: '',
    });
    expect(c).toMatchObject({
      port: 9090, host: '0.0.0.0', dataDir: '/tmp/tc-data', databaseUrl: 'postgresql://u@db:5432/x', redisUrl: 'rediss://cache:6380',
      tz: 'UTC', logLevel: 'warn', accessTokenTtlS: 60, demo: true, storage: 's3', openAppKey: 'key', captchaBypassCode: '0000', adminPassword: null,
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
    [{ TZ: 'Mars/Phobos' }, /^TZ is not a known time zone: "Mars\/Phobos"/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of /],
    [{ NODE_ENV: 'production', CAPTCHA_BYPASS_CODE: '0000' }, /^CAPTCHA_BYPASS_CODE must not be set when NODE_ENV=production/],
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

describe('the process', () => {
  it('exits 1 with exactly one line on stderr naming PORT when PORT=abc', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: 'abc', DATA_DIR: '/nonexistent/never-created' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PORT/);
    expect(lines[0]).toMatch(/abc/);
    expect(stdout).toBe('');
  });
});
