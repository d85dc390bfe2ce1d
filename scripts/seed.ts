/**
 * npm run seed -- [--scale N] [--seed S] [--now YYYY-MM-DD] [--load-mode auto|triggers]
 *
 * Makes the demo data set in the configured database (DATA_DIR's PGlite, or DATABASE_URL): migrates,
 * seeds reference data, then generates about N check-ins (default 100 000; 100k, 2.5M and 1_000_000
 * are understood) over the 24 months before the reference date (36 from 50M check-ins on). Refuses a database that holds
 * business records it did not make; when its demo data is already there it says so and writes nothing.
 */
import cliProgress from 'cli-progress';
import { ConfigError, loadConfig, type Config } from '../src/config.js';

interface Args {
  scale?: number;
  seed?: number;
  now?: string;
  loadMode?: 'auto' | 'triggers';
}

const PHASES: Record<string, string> = {
  catalog: 'merchants, shops, scenic spots, card kinds and rules',
  members: 'members',
  cards: 'cards',
  bindings: 'card bindings',
  checks: 'check-ins',
  indexes: 'rebuilding the check-in indexes',
  validate: 'checking every foreign key',
};

const USAGE = 'usage: npm run seed -- [--scale N] [--seed S] [--now YYYY-MM-DD] [--load-mode auto|triggers]';

function parseCount(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text.replace(/_/g, ''));
  if (!m) throw new Error(`--scale must be a number such as 100000, 100k or 10M, got "${text}"`);
  return Math.round(Number(m[1]) * (m[2] === '' ? 1 : /k/i.test(m[2]) ? 1e3 : 1e6));
}

function parseArgs(argv: string[]): Args {
  const args: Args = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--scale') args.scale = parseCount(value());
    else if (flag === '--seed') {
      const v = value();
      if (!/^\d+$/.test(v)) throw new Error(`--seed must be a whole number, got "${v}"`);
      args.seed = Number(v);
    } else if (flag === '--now') args.now = value();
    else if (flag === '--load-mode') {
      const v = value();
      if (v !== 'auto' && v !== 'triggers') throw new Error(`--load-mode must be auto or triggers, got "${v}"`);
      args.loadMode = v;
    } else if (flag === '--help' || flag === '-h') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    } else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  return args;
}

async function main(): Promise<number> {
  let config: Config;
  let args: Args;
  try {
    config = loadConfig();
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? 'configuration error: ' : ''}${(err as Error).message}\n`);
    return 2;
  }
  // Dates of the data set are local dates of the service zone (check_date, day boundaries).
  process.env.TZ = config.tz;
  const { openDatabase } = await import('../src/platform/db/database.js');
  const { migrateToLatest } = await import('../src/platform/db/migrate.js');
  const { seedReferenceData } = await import('../src/seed/reference.js');
  const { generateDemoData, describeDemoResult } = await import('../src/seed/demo/index.js');
  const { parseDay } = await import('../src/seed/demo/calendar.js');

  let now: Date | undefined;
  if (args.now !== undefined) {
    const parsed = parseDay(args.now);
    if (!parsed) {
      process.stderr.write(`--now must be a date YYYY-MM-DD, got "${args.now}"\n`);
      return 2;
    }
    now = parsed;
  }

  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, tz: config.tz });
  const bar = process.stdout.isTTY
    ? new cliProgress.SingleBar(
        {
          format: '  check-ins |{bar}| {percentage}% {value}/{total} {rate} rows/s eta {eta_formatted}',
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  try {
    await migrateToLatest(database.db);
    const seeded = await seedReferenceData(database.db, {
      adminUsername: config.adminUsername,
      adminPassword: config.adminPassword,
      openApp:
        config.openAppKey && config.openAppSecret
          ? { appKey: config.openAppKey, appSecret: config.openAppSecret }
          : null,
    });
    if (seeded.admin) {
      process.stdout.write(
        `  Bootstrap admin "${seeded.admin.username}" created, password "${seeded.admin.password}"` +
          (seeded.admin.generated ? ' (generated now and shown only once; set ADMIN_PASSWORD to choose it)' : '') +
          '\n',
      );
    }
    const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
    process.stdout.write(`  Generating demo data into ${where}…\n`);
    let phase = '';
    let checkStart = 0;
    const result = await generateDemoData(database, {
      scale: args.scale,
      seed: args.seed,
      now,
      databaseUrl: config.databaseUrl,
      tz: config.tz,
      loadMode: args.loadMode,
      onProgress: (p) => {
        if (p.phase !== phase) {
          if (phase === 'checks') bar?.stop();
          phase = p.phase;
          if (p.phase === 'checks') checkStart = performance.now();
          if (p.phase === 'checks' && bar) bar.start(Math.max(p.total, 1), 0, { rate: 0 });
          else if (p.phase !== 'done') process.stdout.write(`  … ${PHASES[p.phase]}\n`);
        }
        if (p.phase === 'checks' && bar) {
          const elapsed = (performance.now() - checkStart) / 1000;
          bar.setTotal(Math.max(p.total, p.done, 1));
          bar.update(p.done, { rate: elapsed > 0 ? Math.round(p.done / elapsed) : 0 });
        }
      },
    });
    bar?.stop();
    process.stdout.write(describeDemoResult(result, config.adminUsername).join('\n') + '\n');
    if (result.status === 'created') {
      const s = result.stats;
      process.stdout.write(
        `  Rate: ${Math.round(s.checkRate)} check rows/s; rows written: ${Object.entries(s.rows)
          .map(([t, n]) => `${t} ${n}`)
          .join(', ')}.\n`,
      );
      // Where the time went, and the process's peak memory: the figures the operations guide quotes.
      process.stdout.write(
        `  Steps: ${Object.entries(s.steps)
          .map(([step, seconds]) => `${step} ${seconds.toFixed(1)} s`)
          .join('; ')}; peak memory ${Math.round(process.resourceUsage().maxRSS / 1024)} MB.\n`,
      );
    }
    return result.status === 'refused' ? 1 : 0;
  } catch (err) {
    bar?.stop();
    process.stderr.write(`seed failed, nothing written: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

main().then((code) => process.exit(code));
