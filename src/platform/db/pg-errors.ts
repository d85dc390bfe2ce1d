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

/**
 * node-postgres's own timeouts (plain Errors, told apart by message): no connection within
 * connectionTimeoutMillis (a new one, or a pooled one coming free), or no answer within query_timeout.
 * The server or the network stopped answering; the connection, if any, is of no further use.
 */
export function isPgTimeout(err: unknown): boolean {
  const msg = (err as { message?: unknown } | null)?.message;
  return (
    typeof msg === 'string' &&
    /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated due to connection timeout)$/.test(
      msg,
    )
  );
}
