import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ENV_NAMES, envSchemaOf, type EnvName } from '../../src/config-schema.js';
import { BEGIN, END, configTable, renderTargets, TARGETS, withTable } from '../../scripts/config-docs.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('the configuration tables of README.md and docs/operations.md', () => {
  it('are the ones generated from the schema', () => {
    for (const { file, current, expected } of renderTargets(ROOT)) {
      expect(current, `${file} (node --import tsx scripts/config-docs.ts rewrites it)`).toBe(expected);
    }
  });

  it('differ from the generated ones as soon as a table cell is edited by hand', () => {
    const [{ current }] = renderTargets(ROOT).filter((t) => t.file === 'docs/operations.md');
    const edited = current.replace('| `PORT` | `8080` |', '| `PORT` | `8081` |');
    expect(edited).not.toBe(current);
    expect(
      withTable(edited, configTable({ file: 'docs/operations.md', commonOnly: false }), 'docs/operations.md'),
    ).not.toBe(edited);
  });

  it('list every variable in docs/operations.md and the common ones in README.md, one line each', () => {
    const full = configTable(TARGETS.find((t) => t.file === 'docs/operations.md')!);
    const short = configTable(TARGETS.find((t) => t.file === 'README.md')!);
    for (const name of ENV_NAMES) {
      expect(full.split('\n').filter((line) => line.startsWith(`| \`${name}\` |`))).toHaveLength(1);
      expect(short.includes(`| \`${name}\` |`)).toBe(envSchemaOf(name).common === true);
      expect(String(envSchemaOf(name).description ?? '')).toMatch(/^[^\n]{10,}$/);
    }
  });

  it('refuses a file without exactly one pair of markers', () => {
    expect(() => withTable('no markers\n', 'x', 'f.md')).toThrow(/must hold one line/);
    expect(() => withTable(`${END}\n${BEGIN}\n`, 'x', 'f.md')).toThrow(/must hold one line/);
    expect(() => withTable(`${BEGIN}\n${END}\n${BEGIN}\n${END}\n`, 'x', 'f.md')).toThrow(/must hold one line/);
    expect(withTable(`a\n${BEGIN}\nold\n${END}\nb\n`, 'new', 'f.md')).toBe(`a\n${BEGIN}\nnew\n${END}\nb\n`);
  });

  it('--check of the script exits 0 on the repository as it is', async () => {
    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/config-docs.ts', '--check'], {
      cwd: ROOT,
    });
    expect(run.stderr).toBe('');
  });
});

describe('validation against the schema', () => {
  /** Values each constrained variable must refuse, and what the message must say is allowed. */
  function badValues(name: EnvName): { value: string; says: (string | number)[] }[] {
    const s = envSchemaOf(name);
    if (s.type === 'integer') {
      const minimum = s.minimum ?? 0;
      const range = s.maximum === undefined ? [minimum] : [minimum, s.maximum];
      return [
        { value: 'abc', says: ['whole number', '"abc"'] },
        { value: '1.5', says: ['whole number'] },
        ...(s.maximum === undefined ? [] : [{ value: String(s.maximum + 1), says: range }]),
        ...(minimum > 0 ? [{ value: String(minimum - 1), says: range }] : []),
      ];
    }
    if (s.enum) return [{ value: 'no-such-choice', says: [...s.enum, '"no-such-choice"'] }];
    if (s.type === 'boolean') return [{ value: 'maybe', says: ['1/0 or true/false'] }];
    if (s.protocols)
      return [
        { value: 'not a url', says: ['not a valid URL'] },
        { value: 'gopher://host/x', says: s.protocols.map((p) => `${p}//`) },
      ];
    if (s.pattern) return [{ value: 'with space!', says: [String(s.rule), '"with space!"'] }];
    if (s.type === 'array') return [{ value: 'photos.internal,bad host!', says: ['host names, addresses or CIDRs'] }];
    const refined: Partial<Record<EnvName, { value: string; says: string[] }[]>> = {
      TZ: [{ value: 'Mars/Phobos', says: ['not a known time zone', 'Mars/Phobos'] }],
      ADMIN_PASSWORD: [{ value: 'short', says: ['at least 8 characters'] }],
      OFFLINE_PACK_SIGNING_KEY: [{ value: 'not a key', says: ['Ed25519 private key in PKCS#8'] }],
      TENCENT_SMS_ENDPOINT: [
        { value: 'ftp://sms.example.com', says: ['host name or an http(s) origin'] },
        { value: 'https://sms.example.com/v3', says: ['without a path'] },
      ],
      TENCENT_IAI_ENDPOINT: [{ value: 'https://iai.example.com/?x=1', says: ['without a path'] }],
    };
    return refined[name] ?? [];
  }

  const constrained = ENV_NAMES.filter((name) => {
    const s = envSchemaOf(name);
    return s.type !== 'string' || '~refine' in s || s.pattern !== undefined || s.protocols !== undefined;
  });

  it('has bad values for every variable the schema constrains', () => {
    expect(constrained.filter((name) => badValues(name).length === 0)).toEqual([]);
  });

  it.each(constrained)('refuses bad %s values with one line naming it and what is allowed', (name) => {
    for (const { value, says } of badValues(name)) {
      const message = refusal({ [name]: value });
      expect(message.startsWith(`${name} `), message).toBe(true);
      for (const part of says) expect(message, `${name}=${value}`).toContain(String(part));
      // the operator's line: no stack, no validator internals
      expect(message).not.toMatch(/\n|\bat \S+:\d+|~refine|instancePath|schemaPath|TypeBox/);
    }
  });

  it('takes any text for the variables it does not constrain', () => {
    const free = ENV_NAMES.filter((name) => !constrained.includes(name));
    expect(free.length).toBeGreaterThan(0);
    const c = loadConfig(
      Object.fromEntries(free.map((name) => [name, name === 'NODE_ENV' ? 'staging' : 'some text 1/2 ✓'])),
    );
    expect(c).toMatchObject({
      host: 'some text 1/2 ✓',
      nodeEnv: 'staging',
      storePrefix: 'some text 1/2 ✓',
      s3: { region: 'some text 1/2 ✓' },
    });
  });

  it('names every refused variable of one environment in its one line', () => {
    const message = refusal({ PORT: 'abc', LOG_LEVEL: 'loud', DEMO: 'maybe', TZ: 'Mars/Phobos' });
    expect(message).not.toContain('\n');
    for (const name of ['PORT', 'LOG_LEVEL', 'DEMO', 'TZ']) expect(message).toContain(`${name} `);
  });

  it('refuses NODE_HEAP_MB that node would not take as --max-old-space-size', () => {
    expect(refusal({ NODE_HEAP_MB: '1.5' })).toMatch(/^NODE_HEAP_MB must be a whole number/);
    expect(() => loadConfig({ NODE_HEAP_MB: '256' })).not.toThrow();
  });

  it('refuses a read replica without the PostgreSQL it would be a replica of', () => {
    expect(refusal({ DATABASE_READ_URL: 'postgres://replica:5433/tc' })).toMatch(
      /^DATABASE_READ_URL needs DATABASE_URL/,
    );
    expect(
      loadConfig({ DATABASE_URL: 'postgres://primary:5432/tc', DATABASE_READ_URL: 'postgres://replica:5433/tc' })
        .databaseRead,
    ).toEqual({ url: 'postgres://replica:5433/tc', poolMax: 10, maxLagMs: 5_000, checkEveryMs: 500 });
  });
});

describe('an empty environment', () => {
  it('gives the defaults the service always had', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: null,
      databasePoolMax: 10,
      databaseConnectTimeoutMs: 5000,
      databaseQueryTimeoutMs: 30_000,
      databaseReportQueryTimeoutMs: 120_000,
      databaseIdleInTransactionTimeoutMs: 30_000,
      databaseRead: null,
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
      sessionLocalTtlS: 10,
      storage: 'local',
      s3: { endpoint: null, bucket: null, region: null, accessKey: null, secretKey: null },
      uploadMaxBytes: 20 * 1024 * 1024,
      fileBaseUrl: null,
      faceUploadRatePerMin: 20,
      fileFetchRatePerMin: 600,
      uploadMaxFiles: 5,
      admissionStreamsMax: 200,
      faceProvider: 'local',
      face: { groupId: 'tourism-card', matchThreshold: 80, imageMaxBytes: 3 * 1024 * 1024, photoAllowedHosts: [] },
      smsProvider: 'log',
      tencent: { secretId: null, secretKey: null, region: 'ap-guangzhou' },
      tencentSms: {
        endpoint: 'sms.tencentcloudapi.com',
        sdkAppId: null,
        signName: null,
        templateId: null,
        activationTemplateId: null,
      },
      tencentIai: { endpoint: 'iai.tencentcloudapi.com' },
      demo: false,
      loginRatePerMin: 30,
      captchaRatePerMin: 60,
      openAppKey: null,
      openAppSecret: null,
      wechat: { baseUrl: null, appId: null, appSecret: null },
      mpLoginProvider: 'local',
      trustProxy: false,
      http: { headersTimeoutMs: 20_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 65_000 },
      shutdownDelayMs: 0,
      storePrefix: 'tc:',
      backup: {
        dir: path.resolve('./data/backups'),
        stagingDir: path.resolve('./data'),
        everyMs: 24 * 60 * 60 * 1000,
        keep: 7,
      },
      partitionMonthsAhead: 3,
      logRetentionMonths: 0,
      offlinePack: { signingKey: null, ttlHours: 24 },
    });
  });

  it('is the same as one of empty values', () => {
    expect(loadConfig(Object.fromEntries(ENV_NAMES.map((name) => [name, ''])))).toEqual(loadConfig({}));
  });
});

describe('the schema covers every variable the service reads', () => {
  // Handed by the service to its own child process (the PGlite initdb of src/platform/db/), never set by an operator.
  const INTERNAL = new Set(['TC_PGLITE_MODULE', 'TC_PGLITE_DIR']);

  function sourceFiles(dir: string): string[] {
    return (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[])
      .filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && !f.endsWith('.d.ts'))
      .map((f) => path.join(dir, f));
  }

  /** `process.env.X` and `process.env['X']` in a file; a computed `process.env[x]` is reported as `?`. */
  function envReads(file: string): string[] {
    const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const names: string[] = [];
    const isProcessEnv = (e: ts.Expression) =>
      ts.isPropertyAccessExpression(e) &&
      e.name.text === 'env' &&
      ts.isIdentifier(e.expression) &&
      e.expression.text === 'process';
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && isProcessEnv(node.expression)) names.push(node.name.text);
      if (ts.isElementAccessExpression(node) && isProcessEnv(node.expression)) {
        names.push(ts.isStringLiteralLike(node.argumentExpression) ? node.argumentExpression.text : '?');
      }
      // const { X } = process.env
      if (
        ts.isVariableDeclaration(node) &&
        node.initializer &&
        isProcessEnv(node.initializer) &&
        ts.isObjectBindingPattern(node.name)
      ) {
        for (const element of node.name.elements) names.push((element.propertyName ?? element.name).getText(source));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return names;
  }

  it('reads of process.env in src/ and scripts/', () => {
    const files = [...sourceFiles('src'), ...sourceFiles('scripts')];
    expect(files.length).toBeGreaterThan(50);
    const outside = files.flatMap((file) =>
      envReads(file)
        .filter((name) => !INTERNAL.has(name) && !(ENV_NAMES as string[]).includes(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(outside).toEqual([]);
  });

  it("variables of package.json's scripts, with the same defaults", () => {
    const scripts = Object.values(
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>,
    ).join('\n');
    const uses = [...scripts.matchAll(/\$\{([A-Z_][A-Z0-9_]*)(?::?-([^}]*))?\}|\$([A-Z_][A-Z0-9_]*)/g)];
    expect(uses.length).toBeGreaterThan(0);
    for (const [, braced, fallback, bare] of uses) {
      const name = (braced ?? bare) as EnvName;
      expect(ENV_NAMES).toContain(name);
      if (fallback !== undefined) expect(String(envSchemaOf(name).default)).toBe(fallback);
    }
  });

  it('loadConfig reads no variable outside the schema, and uses every variable of it', () => {
    const read = new Set<string | symbol>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get: (_t, key) => (read.add(key), undefined),
      has: (_t, key) => (read.add(key), false),
    });
    loadConfig(env);
    expect([...read].filter((key) => !(ENV_NAMES as (string | symbol)[]).includes(key))).toEqual([]);
    const config = readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
    const unused = ENV_NAMES.filter(
      (name) => !envSchemaOf(name).readBy && !new RegExp(`\\bv\\.${name}\\b|'${name}'`).test(config),
    );
    expect(unused).toEqual([]);
  });
});
