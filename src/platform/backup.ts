import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Database } from './db/database.js';
import type { BackgroundJob } from './jobs.js';

/**
 * Backups of the embedded database while the service runs. Stopping the instance to copy its data
 * directory had been the only way (docs/operations.md §8); now the service copies it itself between
 * two statements (Database.copyDataDir), packs the copy into `pglite-<UTC time>.tar.gz` and keeps the
 * newest `keep`. A backup is restored by unpacking it into an empty `DATA_DIR/pglite`.
 */
export interface BackupSettings {
  dir: string;
  /**
   * Where the data directory is copied before it is packed: on the database's own file system
   * (DATA_DIR), so the copy that statements wait for is a local one even when `dir` is a slow or
   * remote disk.
   */
  stagingDir: string;
  /** a backup is taken when the newest one is this old; 0 turns backups off */
  everyMs: number;
  keep: number;
}

/**
 * How often the job looks whether a backup is due. It goes by the newest file, not by a timer started
 * at boot, so an instance restarted every day still takes its daily backup.
 */
const CHECK_EVERY_MS = 10 * 60 * 1000;
/** A staging directory or partial file this old was left by a run that died. */
const LEFTOVER_MS = 60 * 60 * 1000;
const BACKUP_NAME = /^pglite-(\d{8}T\d{6}Z)\.tar\.gz$/;
const STAGING_PREFIX = '.backup-staging-';

export interface BackupFile {
  file: string;
  takenAt: Date;
}

const stampOf = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const dateOfStamp = (s: string) =>
  new Date(
    `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`,
  );

/** The backups in `dir`, newest first. */
export async function listBackups(dir: string): Promise<BackupFile[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  return names
    .map((name) => BACKUP_NAME.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ file: path.join(dir, m[0]), takenAt: dateOfStamp(m[1]) }))
    .sort((a, b) => b.takenAt.getTime() - a.takenAt.getTime());
}

/** Takes a backup when none in `settings.dir` is younger than `settings.everyMs`; answers its file, or null. */
export async function backupIfDue(
  database: Database,
  settings: BackupSettings,
  now = new Date(),
): Promise<string | null> {
  const newest = (await listBackups(settings.dir))[0];
  if (newest && now.getTime() - newest.takenAt.getTime() < settings.everyMs) return null;
  return takeBackup(database, settings, now);
}

/**
 * Copies the data directory into a staging directory (statements wait only for that file copy), packs
 * it into a partial file, makes the file durable and renames it into place: a run that fails or dies
 * leaves no file that looks like a backup. Then deletes the backups beyond the newest `keep`.
 */
export async function takeBackup(database: Database, settings: BackupSettings, now = new Date()): Promise<string> {
  if (!database.copyDataDir)
    throw new Error('only the embedded database with a data directory is backed up by the service');
  // A backup holds what the database does (password hashes, members' ID numbers), whose own files
  // PostgreSQL keeps to its owner: so are the backups.
  await mkdir(settings.dir, { recursive: true, mode: 0o700 });
  await mkdir(settings.stagingDir, { recursive: true });
  await removeLeftovers(settings.dir, now);
  await removeLeftovers(settings.stagingDir, now);
  const stamp = stampOf(now);
  const final = path.join(settings.dir, `pglite-${stamp}.tar.gz`);
  const staging = path.join(settings.stagingDir, `${STAGING_PREFIX}${stamp}-${process.pid}`);
  const partial = `${final}.partial`;
  try {
    await database.copyDataDir(staging);
    await packDirectory(staging, partial);
    const file = await open(partial, 'r');
    try {
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(partial, final);
    await syncDirectory(settings.dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(partial, { force: true });
  }
  await prune(settings.dir, settings.keep);
  return final;
}

async function packDirectory(dir: string, file: string): Promise<void> {
  // Loaded on the first backup, as the export's zip writer is: most instances never take one.
  const { default: archiver } = await import('archiver');
  const archive = archiver('tar', { gzip: true, gzipOptions: { level: 1 } });
  const written = pipeline(archive, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  archive.directory(dir, false);
  await Promise.all([archive.finalize(), written]);
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function removeLeftovers(dir: string, now: Date): Promise<void> {
  for (const name of await readdir(dir)) {
    if (!name.startsWith(STAGING_PREFIX) && !(name.startsWith('pglite-') && name.endsWith('.tar.gz.partial'))) continue;
    const full = path.join(dir, name);
    const info = await stat(full).catch(() => null);
    if (info && now.getTime() - info.mtimeMs > LEFTOVER_MS) await rm(full, { recursive: true, force: true });
  }
}

async function prune(dir: string, keep: number): Promise<void> {
  for (const old of (await listBackups(dir)).slice(keep)) await unlink(old.file).catch(() => {});
}

/** The job that keeps the embedded database backed up; null where the service takes no backups. */
export function embeddedBackupJob(
  database: Database,
  settings: BackupSettings,
  log: (file: string) => void,
): BackgroundJob | null {
  if (!database.copyDataDir || settings.everyMs <= 0) return null;
  return {
    name: 'embedded database backup',
    everyMs: CHECK_EVERY_MS,
    run: async () => {
      const file = await backupIfDue(database, settings);
      if (file) log(file);
    },
  };
}
