import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';

/**
 * Named prepared statements for the few hot statements of the service (check-in). PostgreSQL spends
 * more on parsing and planning a statement of several CTEs and joins than on running it against its
 * indexes; a named statement is parsed once per connection and its plan can be cached. A query opts
 * in by starting with `preparedAs(name)`, a comment the PostgreSQL pool recognises
 * (`namedStatement`); PGlite, and anything that does not look for the comment, just runs the text.
 *
 * Each distinct text gets its own statement (the name carries a hash of it), so a query built in a
 * few variants prepares a few statements per connection. Keep the marker off texts that vary without
 * bound (IN lists of any length). Not for a transaction-pooling proxy that cannot keep named
 * statements per connection.
 */
const MARK = '/* prepared:';
const NAME = /^[a-z][a-z0-9-]{0,39}$/;

export function preparedAs(name: string): RawBuilder<unknown> {
  if (!NAME.test(name)) throw new Error(`prepared statement name "${name}": lower-case letters, digits and -, at most 40`);
  return sql.raw(`${MARK}${name} */ `);
}

/** The statement name for a marked query text, or null for every other text. */
export function namedStatement(text: string): string | null {
  if (!text.startsWith(MARK)) return null;
  const end = text.indexOf(' */', MARK.length);
  if (end < 0) return null;
  const name = text.slice(MARK.length, end);
  if (!NAME.test(name)) return null;
  return `${name}-${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}
