import { createHash } from 'node:crypto';
import { CompiledQuery, sql, type QueryResult, type RawBuilder } from 'kysely';
import type { Executor } from './executor.js';
import { assertNotInOwnTransaction } from './transaction.js';

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
  return sql.raw(markFor(name));
}

/** The marker as text, for a statement assembled as text (paginate's windows). */
export function markFor(name: string): string {
  if (!NAME.test(name))
    throw new Error(`prepared statement name "${name}": lower-case letters, digits and -, at most 40`);
  return `${MARK}${name} */ `;
}

// Marked texts are few (that is the rule of the marker), so each one's name is hashed once.
const names = new Map<string, string | null>();
const NAMES_KEPT = 1_000;

/** The statement name for a marked query text, or null for every other text. */
export function namedStatement(text: string): string | null {
  if (!text.startsWith(MARK)) return null;
  const known = names.get(text);
  if (known !== undefined) return known;
  const end = text.indexOf(' */', MARK.length);
  const name = end < 0 ? null : text.slice(MARK.length, end);
  const named =
    name !== null && NAME.test(name) ? `${name}-${createHash('sha1').update(text).digest('hex').slice(0, 16)}` : null;
  if (names.size < NAMES_KEPT) names.set(text, named);
  return named;
}

/** A raw `sql` query, or a query builder of `db` (which ignores the argument). */
interface Compiles<R> {
  compile(db: Executor): CompiledQuery<R>;
}

/** Stands for a value given at each run of a statement built once (`compiledOnce`). */
class Slot {
  constructor(readonly key: string) {}
}

/** A compiled text whose parameters are stand-ins (filled at each run) or values placed by the build. */
export interface Template<K extends string> {
  sql: string;
  values: Array<{ key: K } | { fixed: unknown }>;
}

/** A stand-in for each key, to build a statement once with (`compiledOnce`, paginate's `listTemplate`). */
export const slotsFor = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, new Slot(k)])) as Record<K, unknown>;

/** The compiled statement of a build given `slotsFor`'s stand-ins, as a template to fill. */
export function templateOf<K extends string>(query: CompiledQuery): Template<K> {
  return {
    sql: query.sql,
    values: query.parameters.map((v) => (v instanceof Slot ? { key: v.key as K } : { fixed: v })),
  };
}

/** The template's statement with these values. */
export function fill<K extends string, R>(template: Template<K>, values: Record<K, unknown>): CompiledQuery<R> {
  return CompiledQuery.raw(
    template.sql,
    template.values.map((v) => ('key' in v ? values[v.key] : v.fixed)),
  ) as CompiledQuery<R>;
}

/**
 * A hot statement built and compiled once, then run with new values: building a Kysely query and
 * compiling it cost more CPU per check-in than anything else the service did outside the driver
 * (profiled). `build` receives a stand-in for each value in `keys` (and the executor of the first run,
 * for a query builder) and must only place them in the query (`${p.cardId}`, `.where('id', '=', p.id)`),
 * never compute with them: a statement whose text depends on a value is one
 * `compiledOnce` per variant. Values it places itself stay as they were at the first run. A text that
 * starts with `preparedAs(name)` is run as a named statement on PostgreSQL.
 *
 * Runs like any query of `db`: a pool query from inside its own `inTransaction` work still fails fast.
 */
export function compiledOnce<K extends string, R>(
  keys: readonly K[],
  build: (p: Record<K, unknown>, db: Executor) => Compiles<R>,
) {
  let compiled: Template<K> | null = null;
  return async (db: Executor, values: Record<K, unknown>): Promise<QueryResult<R>> => {
    if (!compiled) {
      compiled = templateOf(build(slotsFor(keys), db).compile(db));
    } else if (!db.isTransaction) {
      assertNotInOwnTransaction(db);
    }
    return db.executeQuery<R>(fill(compiled, values));
  };
}
