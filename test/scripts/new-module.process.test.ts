import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm run new-module NAME` (scripts/new-module.ts, docs/new-module.md) run in a copy of the repository:
 * what it writes must pass the linter, the type check and its own test there, and a second run, a bad
 * name or a taken one must be refused without a file changed. Slow (a type check of the whole tree and
 * a test run with its own database template): a process test.
 */
const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const NAME = 'gift-shop';
const HEAVY_MS = 300_000;

let dir: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The child's environment without the outer run's Vitest state; on PGlite, so it leaves nothing on a server. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      k.startsWith('VITEST') ||
      ['DATABASE_URL', 'REDIS_URL', 'TEST_RUN_ID', 'TEST_CACHE_SPACE', 'NODE_OPTIONS'].includes(k)
    )
      continue;
    env[k] = v;
  }
  return env;
}

function run(args: string[], timeout = HEAVY_MS): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: dir, env: childEnv(), timeout, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : -1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const newModule = (...args: string[]) => run(['--import', 'tsx', 'scripts/new-module.ts', ...args], 60_000);
const bin = (rel: string) => path.join(dir, 'node_modules', rel);

/** Every file of the copy that a run could change, with its contents. */
function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  for (const top of ['src', 'test', 'docs']) {
    for (const e of readdirSync(path.join(dir, top), { recursive: true, withFileTypes: true })) {
      if (e.isFile())
        out.set(
          path.relative(dir, path.join(e.parentPath, e.name)),
          readFileSync(path.join(e.parentPath, e.name), 'utf8'),
        );
    }
  }
  return out;
}

const listed = (out: string, kind: 'new' | 'changed') =>
  [...out.matchAll(new RegExp(`^  ${kind} +(\\S+)$`, 'gm'))].map((m) => m[1]);

let before: { lastMigration: number; lastDate: string; lastRange: number };

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tc-new-module-'));
  for (const rel of [
    'src',
    'test/helpers',
    'scripts/new-module.ts',
    'docs/errors.md',
    'package.json',
    'tsconfig.json',
    'eslint.config.js',
    'vitest.config.ts',
  ]) {
    cpSync(path.join(root, rel), path.join(dir, rel), { recursive: true });
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const migrations = readdirSync(path.join(dir, 'src/db/migrations'))
    .map((f) => /^(\d{8})_(\d{4})_/.exec(f))
    .filter((m) => m !== null);
  const ranges = [...readFileSync(path.join(dir, 'docs/errors.md'), 'utf8').matchAll(/^\| 1_0(\d\d)_000_000 \|/gm)].map(
    (m) => Number(m[1]),
  );
  before = {
    lastMigration: Math.max(...migrations.map((m) => Number(m[2]))),
    lastDate: migrations
      .map((m) => m[1])
      .sort()
      .at(-1)!,
    lastRange: Math.max(...ranges),
  };
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The generated module is checked on PGlite whatever the outer run uses, so the suite on PostgreSQL
// would only repeat the same work: it runs in the embedded-defaults suite.
describe.skipIf(Boolean(process.env.DATABASE_URL))('npm run new-module', () => {
  let written: string[] = [];
  let changed: string[] = [];

  it('prints every file with --dry-run and writes nothing', async () => {
    const was = snapshot();
    const res = await newModule('--dry-run', NAME);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`=== src/modules/${NAME}/index.ts (new)`);
    expect(res.stdout).toContain(`=== test/${NAME}/${NAME}.test.ts (new)`);
    expect(res.stdout).toContain('=== src/modules/index.ts (changed)\n+ import { giftShopModule }');
    expect(snapshot()).toEqual(was);
  });

  it('writes the module, its table, migration, errcode range and test, and lists them', async () => {
    const res = await newModule(NAME);
    expect(res.code, res.stderr).toBe(0);
    written = listed(res.stdout, 'new');
    changed = listed(res.stdout, 'changed');
    const migration = written.find((f) => f.startsWith('src/db/migrations/'))!;
    const [, date, nnnn] = /^src\/db\/migrations\/(\d{8})_(\d{4})_gift_shop\.ts$/.exec(migration) ?? [];
    expect(Number(nnnn)).toBe(before.lastMigration + 1);
    expect(date >= before.lastDate).toBe(true);
    expect(written.sort()).toEqual(
      [
        migration,
        'src/db/tables/gift-shop.ts',
        'src/modules/gift-shop/gift-shop.errors.ts',
        'src/modules/gift-shop/gift-shop.module.ts',
        'src/modules/gift-shop/gift-shop.repository.ts',
        'src/modules/gift-shop/gift-shop.routes.ts',
        'src/modules/gift-shop/gift-shop.schemas.ts',
        'src/modules/gift-shop/gift-shop.service.ts',
        'src/modules/gift-shop/index.ts',
        'test/gift-shop/gift-shop.test.ts',
      ].sort(),
    );
    expect(changed.sort()).toEqual([
      'docs/errors.md',
      'src/db/migrations/index.ts',
      'src/db/types.ts',
      'src/modules/index.ts',
    ]);
    for (const f of written) expect(existsSync(path.join(dir, f)), f).toBe(true);
    expect(res.stdout).toMatch(/Next steps/);

    const text = (f: string) => readFileSync(path.join(dir, f), 'utf8');
    const id = path.basename(migration, '.ts');
    expect(text('src/db/migrations/index.ts')).toContain(`'${id}': m${nnnn},`);
    expect(text('src/db/types.ts')).toMatch(/^ {2}gift_shop: GiftShopTable;$/m);
    expect(text('src/modules/index.ts')).toMatch(/^ {2}giftShopModule,$/m);
    const range = `1_0${String(before.lastRange + 1).padStart(2, '0')}`;
    expect(text('docs/errors.md')).toMatch(new RegExp(`^\\| ${range}_000_000 \\| gift-shop \\|`, 'm'));
    expect(text('src/modules/gift-shop/gift-shop.errors.ts')).toContain(`${range}_000_001`);
  });

  it('refuses a second run for the same name, a bad name and a taken one, changing nothing', async () => {
    const was = snapshot();
    const refusals: Array<[string, RegExp]> = [
      [NAME, /refused "gift-shop": module "gift-shop" exists/],
      ['Gift', /refused "Gift": a module name is/],
      ['gift-', /kebab-case/],
      ['select', /"select" is reserved/],
      ['platform', /"platform" is reserved/],
      ['card-model', /table "card_model" exists/],
    ];
    for (const [name, why] of refusals) {
      const res = await newModule(name);
      expect(res.code, `${name}: ${res.stdout}`).toBe(1);
      expect(res.stderr).toMatch(why);
    }
    expect(snapshot()).toEqual(was);
  });

  it(
    'writes files the linter passes with no problem',
    async () => {
      const files = [...written, ...changed.filter((f) => f.endsWith('.ts'))];
      const res = await run([bin('eslint/bin/eslint.js'), '--max-warnings', '0', '--format', 'json', ...files]);
      const report = JSON.parse(res.stdout) as Array<{
        filePath: string;
        errorCount: number;
        warningCount: number;
        messages: unknown[];
      }>;
      expect(report.map((r) => path.relative(dir, r.filePath)).sort()).toEqual([...files].sort());
      const problems = report.filter((r) => r.errorCount + r.warningCount > 0);
      expect(problems, JSON.stringify(problems, null, 2)).toEqual([]);
      expect(res.code, res.stderr).toBe(0);
    },
    HEAVY_MS,
  );

  it(
    'leaves a tree the type check passes with no error',
    async () => {
      const res = await run([bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit', '--pretty', 'false']);
      expect(res.stdout + res.stderr).toBe('');
      expect(res.code).toBe(0);
    },
    HEAVY_MS,
  );

  it(
    'writes a test that passes: the rejection matrix, success, scoping and the operation log',
    async () => {
      const out = path.join(dir, 'vitest-report.json');
      const res = await run([
        bin('vitest/vitest.mjs'),
        'run',
        '--project',
        'app',
        '--no-cache',
        '--reporter=json',
        `--outputFile=${out}`,
        `test/${NAME}/${NAME}.test.ts`,
      ]);
      if (!existsSync(out))
        throw new Error(
          `vitest wrote no report (exit ${res.code}):\n${res.stdout.slice(-4000)}\n${res.stderr.slice(-4000)}`,
        );
      const report = JSON.parse(readFileSync(out, 'utf8')) as {
        numTotalTests: number;
        numFailedTests: number;
        numPassedTests: number;
        testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string }> }>;
      };
      const failed = report.testResults.flatMap((f) =>
        f.assertionResults.filter((a) => a.status !== 'passed').map((a) => `${a.fullName}: ${a.status}`),
      );
      expect(failed, res.stderr.slice(-4000)).toEqual([]);
      expect(report.testResults.map((f) => path.relative(dir, f.name))).toEqual([`test/${NAME}/${NAME}.test.ts`]);
      const names = report.testResults[0].assertionResults.map((a) => a.fullName);
      expect(names.filter((n) => n.startsWith('rejection matrix')).length).toBeGreaterThanOrEqual(15);
      expect(names.some((n) => n.startsWith('success'))).toBe(true);
      expect(report.numPassedTests).toBe(report.numTotalTests);
      expect(res.code).toBe(0);
    },
    HEAVY_MS,
  );
});
