import type { Kysely } from 'kysely';
import { runDdl } from './ddl.js';

/** Failed logins are counted in the store per account and address (login-guard.ts); these columns are unused. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'alter table admin_user drop column failed_login_count',
    'alter table admin_user drop column locked_until',
    'alter table checker drop column failed_login_count',
    'alter table checker drop column locked_until',
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    'alter table admin_user add column failed_login_count integer not null default 0',
    'alter table admin_user add column locked_until timestamptz',
    'alter table checker add column failed_login_count integer not null default 0',
    'alter table checker add column locked_until timestamptz',
  ]);
}
