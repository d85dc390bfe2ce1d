/** Settings every test database and app share; the template is seeded with this admin. */
export const TEST_ADMIN = { username: 'admin', password: 'Admin@Test2026' };
export const TEST_TZ = 'Asia/Shanghai';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: path of a dumped, migrated and seeded data directory. */
    pgliteSnapshot: string;
    /** PostgreSQL: the migrated and seeded template database new test databases are copied from. */
    pgTemplate: string;
    /** Names this run's test databases, so teardown drops exactly those. */
    runId: string;
  }
}

/** `url` with its database replaced by `database` (test databases live beside the one configured). */
export function adminUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + database;
  return u.toString();
}
