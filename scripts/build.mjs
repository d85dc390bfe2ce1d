// The bundle `npm start` runs (prestart) and `npm run build` makes. Plain JavaScript so it runs
// before anything is built.
//
// A running instance still loads chunks of its bundle lazily, so a build must never delete or
// overwrite files one may load: each build goes to dist/builds/<hash of the sources>/, made in a
// temporary directory and renamed into place whole, and dist/main.mjs, a one-line entry that
// imports the current build, is replaced by a rename too. Sources that did not change are not built
// again, and two builds at once from one checkout both end with the same complete build.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const builds = path.join(dist, 'builds');
/** Builds kept besides the current one, for instances started from them (newest first). */
const KEEP_PREVIOUS = 4;
/** A temporary build directory older than this was left by a build that died. */
const ABANDONED_MS = 60 * 60 * 1000;

const OPTIONS = {
  entryPoints: ['src/main.ts'],
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
};

function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out;
}

/** What a build depends on: the sources, the manifests, the options and this script. */
function sourceHash() {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(OPTIONS));
  hash.update(esbuild.version);
  const files = [
    ...filesUnder(path.join(root, 'src')),
    ...['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.mjs'].map((f) => path.join(root, f)),
  ];
  for (const file of files.filter(existsSync).sort()) {
    hash.update(path.relative(root, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

async function buildInto(id) {
  const target = path.join(builds, id);
  if (existsSync(path.join(target, 'main.mjs'))) return false;
  const temporary = path.join(builds, `.tmp-${id}-${process.pid}-${randomBytes(4).toString('hex')}`);
  await esbuild.build({ ...OPTIONS, absWorkingDir: root, outdir: temporary });
  try {
    renameSync(temporary, target);
  } catch (err) {
    // Another build of the same sources got there first; its result is the same.
    rmSync(temporary, { recursive: true, force: true });
    if (!existsSync(path.join(target, 'main.mjs'))) throw err;
    return false;
  }
  return true;
}

/** Points dist/main.mjs at a build: written aside, then renamed over the old entry in one step. */
function switchTo(id) {
  const entry = path.join(dist, 'main.mjs');
  const temporary = path.join(dist, `.main-${process.pid}-${randomBytes(4).toString('hex')}.mjs`);
  writeFileSync(temporary, `// written by scripts/build.mjs: the current build\nimport './builds/${id}/main.mjs';\n`);
  renameSync(temporary, entry);
}

/** Removes all but the newest few builds, and temporary directories abandoned by a build that died. */
function prune(current) {
  const now = Date.now();
  const entries = readdirSync(builds).map((name) => ({ name, mtime: statSync(path.join(builds, name)).mtimeMs }));
  for (const e of entries) {
    if (e.name.startsWith('.tmp-') && now - e.mtime > ABANDONED_MS)
      rmSync(path.join(builds, e.name), { recursive: true, force: true });
  }
  const finished = entries
    .filter((e) => !e.name.startsWith('.') && e.name !== current)
    .sort((a, b) => b.mtime - a.mtime);
  for (const e of finished.slice(KEEP_PREVIOUS)) rmSync(path.join(builds, e.name), { recursive: true, force: true });
}

mkdirSync(builds, { recursive: true });
const id = sourceHash();
const built = await buildInto(id);
switchTo(id);
prune(id);
if (process.argv.includes('--verbose')) process.stdout.write(`${built ? 'built' : 'unchanged'} dist/builds/${id}\n`);
