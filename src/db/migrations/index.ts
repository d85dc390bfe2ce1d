import type { Migration, MigrationProvider } from 'kysely/migration';
import * as m0001 from './20261122_0001_platform.js';
import * as m0002 from './20261122_0002_domain_records.js';

/**
 * Migrations listed statically rather than read from the folder, so they load the same way under
 * tsx, a compiled build or a bundle. Names are timestamp-first and must only ever be appended.
 */
const migrations: Record<string, Migration> = {
  '20261122_0001_platform': m0001,
  '20261122_0002_domain_records': m0002,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
