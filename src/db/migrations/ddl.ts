import { sql, type Kysely } from 'kysely';

/** Runs DDL statements one by one: PGlite's extended protocol takes a single statement per query. */
export async function runDdl(db: Kysely<unknown>, statements: string[]): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}

/** The audit columns every record carries (docs/domain.md: created/updated by and at). */
export const AUDIT = `
  created_by bigint,
  created_at timestamptz not null default now(),
  updated_by bigint,
  updated_at timestamptz not null default now()`;
