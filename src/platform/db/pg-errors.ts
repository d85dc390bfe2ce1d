/** PostgreSQL errors a service translates into a business answer (both drivers expose code/constraint). */
interface PgError {
  code?: string;
  constraint?: string;
}

/** A unique-index violation, optionally of one named index or constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as PgError | null;
  if (!e || e.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint;
}

