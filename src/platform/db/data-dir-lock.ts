import lockfile from 'proper-lockfile';

/**
 * One process at a time on an embedded data directory. PGlite writes its files as PostgreSQL does but
 * takes no lock another process would see (its postmaster.pid holds the WebAssembly's own pid): two
 * instances on one DATA_DIR, a second `npm start` or a restart overlapping a draining one, both came
 * up and wrote the same files (seen 2026-11-26). The lock is a directory beside the data directory
 * (`pglite.lock`) whose time the holder renews; a holder killed without releasing it leaves it to go
 * stale, and a start that finds it held waits for that before giving up.
 */
const STALE_MS = 10_000;
/** A start waits this long for a lock left by a process that died (it goes stale after STALE_MS). */
export const DEFAULT_LOCK_WAIT_MS = STALE_MS + 2_000;

export class DataDirInUseError extends Error {}

/** Takes the lock of `dir` (waiting up to `waitMs` for a stale one); answers its release. */
export async function lockDataDir(dir: string, waitMs = DEFAULT_LOCK_WAIT_MS): Promise<() => Promise<void>> {
  const attempts = Math.floor(waitMs / 1_000);
  try {
    return await lockfile.lock(dir, {
      realpath: false, // the directory may not exist yet: the lock comes before initdb
      stale: STALE_MS,
      retries: attempts > 0 ? { retries: attempts, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 } : 0,
      // Someone took the lock while this process held it (it could not renew it for STALE_MS, and
      // another start found it stale): two processes may now write one database, so this one stops
      // at once rather than write another statement.
      onCompromised: (err) => {
        process.stderr.write(
          `the lock of ${dir} was lost (${err.message}); stopping so that only one process writes it\n`,
        );
        process.exit(1);
      },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new DataDirInUseError(
        `${dir} is in use by another running instance (${dir}.lock is held); stop it, or give this one another DATA_DIR`,
      );
    }
    throw err;
  }
}
