import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import lockfile from 'proper-lockfile';
import { adminUrl } from './test-env.js';

/**
 * The migrated and seeded database every test file starts from (template-build.ts) is built once and
 * kept, named by a hash of what decides its rows, so a run whose inputs did not change starts at once:
 * a PGlite dump in .test-cache/, a PostgreSQL template database on the server.
 *
 * The key is the import closure of template-build.ts, as esbuild resolves it (migrations, seed code,
 * the repositories it writes through, the database layer and its PGlite settings, the test admin), by
 * the contents of each file, plus the installed version of every package that closure imports and of
 * PGlite (loaded by URL, not by an import). Hashing a fixed list of folders instead would miss the
 * seed's imports from other folders (the region rows, the staff repository); the closure follows them
 * wherever they move. It also hashes files that decide nothing about the rows (a change to one only
 * costs one rebuild).
 *
 * TEST_CACHE_SPACE (CI sets it to its run id) names a key space of its own: such a run never reuses
 * what another built, and its names carry the space so its cleanup can drop them (.ci/run).
 */
const KEY_FORMAT = 'tc-template-v1';
const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const cacheDir = path.join(root, '.test-cache');
/** A template not used for this long, under an older key, is dropped by the next build. */
const STALE_AFTER_MS = 60 * 60 * 1000;
/** Run links of a run that died before its teardown. */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

export function cacheSpace(): string {
  return (process.env.TEST_CACHE_SPACE ?? '').toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

function installedVersion(pkg: string): string {
  try {
    return JSON.parse(readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return 'missing';
  }
}

function packageName(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The hash of everything that decides the template's rows (see above); 16 hex digits. */
export async function templateKey(): Promise<string> {
  const { build } = await import('esbuild');
  const entry = fileURLToPath(new URL('./template-build.ts', import.meta.url));
  const { metafile } = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const hash = createHash('sha256').update(`${KEY_FORMAT}\n`);
  const packages = new Set<string>(['@electric-sql/pglite']);
  for (const file of Object.keys(metafile.inputs).sort()) {
    hash
      .update(`file ${file}\n`)
      .update(readFileSync(path.join(root, file)))
      .update('\n');
    for (const imported of metafile.inputs[file].imports) {
      const name = imported.external ? packageName(imported.path) : null;
      if (name) packages.add(name);
    }
  }
  for (const name of [...packages].sort()) hash.update(`package ${name}@${installedVersion(name)}\n`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The PGlite dump for `key`, built now unless the cache holds it, hard-linked to a file of this run's
 * own (returned): a later run that replaces the cached dump never pulls it from under this one.
 * Concurrent runs build it once: the first holds a lock while it builds, the others wait for it.
 */
export async function pgliteSnapshot(
  key: string,
  runId: string,
  build: (scratchDir: string) => Promise<Uint8Array>,
): Promise<string> {
  mkdirSync(cacheDir, { recursive: true });
  const space = cacheSpace();
  const prefix = `pglite-${space ? `${space}-` : ''}`;
  const file = path.join(cacheDir, `${prefix}${key}.tar`);
  const release = await lockfile.lock(cacheDir, {
    lockfilePath: `${file}.lock`,
    // Held through a build (~10 s, minutes on a starved machine): the lock's mtime is kept fresh
    // meanwhile, so only a dead holder's lock goes stale.
    stale: 30_000,
    retries: { retries: 1_500, factor: 1, minTimeout: 200, maxTimeout: 200 },
  });
  try {
    if (!existsSync(file)) {
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, await build(cacheDir));
      renameSync(partial, file);
      for (const name of readdirSync(cacheDir)) {
        const other = path.join(cacheDir, name);
        // Older keys' dumps (runs still using one hold a link of their own) and abandoned partials.
        const olderDump =
          name.startsWith(prefix) && new RegExp(`^${prefix}[0-9a-f]{16}\\.tar$`).test(name) && other !== file;
        const partialLeft = name.endsWith('.partial') && Date.now() - statSync(other).mtimeMs > STALE_AFTER_MS;
        if (olderDump || partialLeft) rmSync(other, { force: true });
      }
    }
  } finally {
    await release();
  }
  for (const name of readdirSync(cacheDir)) {
    const other = path.join(cacheDir, name);
    if (/^snapshot-.*\.tar$/.test(name) && Date.now() - statSync(other).mtimeMs > ABANDONED_AFTER_MS)
      rmSync(other, { force: true });
  }
  const runFile = path.join(cacheDir, `snapshot-${runId}.tar`);
  rmSync(runFile, { force: true });
  try {
    linkSync(file, runFile);
  } catch {
    copyFileSync(file, runFile); // a file system without hard links
  }
  return runFile;
}

const OBJECT_IN_USE = '55006';
const DUPLICATE_DATABASE = '42P04';
const USED_NOTE = /^tc template, last used (\d+)$/;

/**
 * The PostgreSQL template database for `key` on the server of `url`, seeded now unless it exists.
 * It is seeded under a name of this process's own and renamed into place once complete, so the name
 * `tc_tpl_<key>` always means a whole template; an advisory lock keeps concurrent runs from seeding it
 * twice (were the lock not shared, the rename still lets exactly one of them win). Each use notes its
 * time on the database (COMMENT), and templates of other keys unused for an hour are dropped.
 */
export async function postgresTemplate(
  url: string,
  key: string,
  seed: (url: string, scratchDir: string) => Promise<void>,
): Promise<string> {
  const space = cacheSpace();
  const prefix = `tc_tpl_${space ? `${space}_` : ''}`;
  const name = `${prefix}${key}`;
  const id = (s: string) => pg.escapeIdentifier(s);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
    const exists = async (db: string) =>
      (await admin.query('select 1 from pg_database where datname = $1', [db])).rowCount === 1;
    if (!(await exists(name))) {
      const building = `tc_tplb_${space ? `${space}_` : ''}${key}_${process.pid}`;
      await admin.query(`drop database if exists ${id(building)} with (force)`);
      await admin.query(`create database ${id(building)}`);
      try {
        await seed(adminUrl(url, building), cacheDir);
        await renameWhenFree(admin, building, name);
      } catch (err) {
        await admin.query(`drop database if exists ${id(building)} with (force)`).catch(() => {});
        if ((err as { code?: string }).code !== DUPLICATE_DATABASE) throw err;
      }
    }
    await admin.query(`comment on database ${id(name)} is ${pg.escapeLiteral(`tc template, last used ${Date.now()}`)}`);
    const others = await admin.query<{ datname: string; note: string | null }>(
      `select datname, shobj_description(oid, 'pg_database') as note from pg_database where datname like $1 and datname <> $2`,
      [`${prefix.replace(/_/g, '\\_')}%`, name],
    );
    for (const other of others.rows) {
      if (!new RegExp(`^${prefix}[0-9a-f]{16}$`).test(other.datname)) continue;
      const used = Number(USED_NOTE.exec(other.note ?? '')?.[1] ?? 0);
      // Not forced: a template something is copying right now is left for a later run to drop.
      if (Date.now() - used > STALE_AFTER_MS)
        await admin.query(`drop database if exists ${id(other.datname)}`).catch(() => {});
    }
  } finally {
    await admin.end();
  }
  return name;
}

/** The seeding connections' backends may still be closing when the rename asks for none. */
async function renameWhenFree(admin: pg.Client, from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`alter database ${pg.escapeIdentifier(from)} rename to ${pg.escapeIdentifier(to)}`);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== OBJECT_IN_USE || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
