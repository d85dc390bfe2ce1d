import {
  ColumnNode,
  CompiledQuery,
  createQueryId,
  OrderByItemNode,
  OrderByNode,
  RawNode,
  ReferenceNode,
  sql,
  type SelectQueryBuilder,
  type SelectQueryNode,
} from 'kysely';
import { pageWindow, type Page, type PageRequest } from '../http/paging.js';
import { batchedRead } from './batched-read.js';
import type { Executor } from './executor.js';
import { fill, markFor, slotsFor, templateOf, type Template } from './prepared.js';

/**
 * A list's query compiled once per request; reads whose lists are the same text and values share
 * statements. `prepared`: the name its page statements are prepared under (`PageOptions`).
 */
type Listed = { compiled: CompiledQuery; group: string; prepared: string | null };

export interface PageOptions {
  /** answers the same total some cheaper way (a tally kept by a trigger) */
  count?: () => Promise<number>;
  /**
   * Prepare the page statements under this name, their windows as parameters: PostgreSQL then plans
   * each text once per connection instead of at every page (a UNION of eight windows of the member
   * list: 6.3 ms of planning against 1.4 ms run). Only for a list whose plan does not depend on its
   * values (equality filters on indexed columns): a generic plan knows no value, so a `LIKE` prefix or
   * a date range would lose its index.
   */
  prepared?: string;
}

/** A window's rows, or why reading it alone failed. */
type WindowRead = { rows: unknown[] } | { error: unknown };

/** The window's number and its row's rank within it, added to the rows of a shared statement. */
const WINDOW = '__page_window';
const RANK = '__page_rank';

/**
 * Windows one statement reads at most: each is a scan of its own, and the statement must end within
 * DATABASE_QUERY_TIMEOUT_MS like any single page.
 */
const WINDOWS_PER_STATEMENT = 16;

const windowKey = (limit: number, offset: number) => `${limit}:${offset}`;

/**
 * The ordered list's text with its i-th window: inlined (integers checked by the caller), or, for a
 * prepared list, as parameters after the list's own ($n+1, $n+2 for the first window, and so on).
 */
function windowed(list: Listed, i: number, limit: number, offset: number): string {
  if (list.prepared === null) return `${list.compiled.sql} limit ${limit} offset ${offset}`;
  const n = list.compiled.parameters.length + 2 * i;
  return `${list.compiled.sql} limit $${n + 1} offset $${n + 2}`;
}

/** The statement's parameters: the list's own, then each window's limit and offset when prepared. */
const parametersOf = (list: Listed, windows: Array<[number, number]>) =>
  list.prepared === null ? [...list.compiled.parameters] : [...list.compiled.parameters, ...windows.flat()];

const statement = (list: Listed, text: string, windows: Array<[number, number]>) =>
  CompiledQuery.raw(`${list.prepared === null ? '' : markFor(list.prepared)}${text}`, parametersOf(list, windows));

/**
 * Pages of one list (same text, same values) that requests ask for at the same time, read by one
 * statement: on PostgreSQL each statement is a round trip and a wake-up of a backend, which cost a page
 * read more than its index scan (docs/adr/0077-pages-read-at-the-same-time-share-a-statement.md). One
 * window alone is the list's own statement; several are a UNION ALL of them, each numbered and its rows
 * ranked, so each is planned with its own constant limit and offset exactly as it would be alone. A
 * window asked for twice is read once. When the shared statement fails (a row of one window that
 * cannot be read, a timeout), each window is read again alone, so a page fails only as it would have
 * failed alone.
 */
const windowRows = batchedRead<string, WindowRead, Listed>(
  async (db, keys, list) => {
    const windows = keys.map((k) => k.split(':').map(Number) as [number, number]);
    const alone = async (window: [number, number]): Promise<WindowRead> => {
      try {
        return { rows: (await db.executeQuery(statement(list, windowed(list, 0, ...window), [window]))).rows };
      } catch (error) {
        return { error };
      }
    };
    if (windows.length === 1) return [[keys[0], await alone(windows[0])]];
    // Every branch is the same list with the same values, so they share its parameters ($1 … $n).
    const text = windows
      .map(
        ([limit, offset], i) =>
          `(select p.*, ${i} as ${WINDOW}, row_number() over () as ${RANK} from (${windowed(list, i, limit, offset)}) p)`,
      )
      .join(' union all ');
    let rows: Array<Record<string, unknown>>;
    try {
      ({ rows } = await db.executeQuery<Record<string, unknown>>(
        statement(list, `${text} order by ${WINDOW}, ${RANK}`, windows),
      ));
    } catch {
      return Promise.all(keys.map(async (k, i) => [k, await alone(windows[i])] as const));
    }
    const byWindow: unknown[][] = keys.map(() => []);
    for (const r of rows) byWindow[Number(r[WINDOW])].push(r);
    return keys.map((k, i) => [k, { rows: byWindow[i] }] as const);
  },
  (l) => l.group,
  { maxKeys: WINDOWS_PER_STATEMENT },
);

/** Counts of one list made at the same time: one statement. */
const listCount = batchedRead<'total', number, Listed>(
  async (db, _keys, { compiled }) => {
    const { rows } = await db.executeQuery<{ total: string | number }>(compiled);
    return [['total', Number(rows[0].total)]];
  },
  (l) => l.group,
);

// Values of a list's filters as a key: bigints as text (JSON has none), dates by their instant.
const valueText = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v);

/** The query counting a list's rows: its filters without its order. */
const countOf = <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) =>
  query
    .clearSelect()
    .clearOrderBy()
    .select(sql<string | number>`count(*)`.as('total'));

/** A list built and compiled once for its shape (`listTemplate`), with one request's values. */
export class FilledList<O> {
  constructor(
    readonly node: SelectQueryNode,
    private readonly texts: { list: Template<string>; count: Template<string>; reversed: Template<string> | null },
    private readonly values: Record<string, unknown>,
  ) {}

  compile(): CompiledQuery<O> {
    return fill(this.texts.list, this.values);
  }

  /** The list in the opposite order (`reversedOrder`), or null when its order cannot be turned. */
  compileReversed(): CompiledQuery<O> | null {
    return this.texts.reversed ? fill(this.texts.reversed, this.values) : null;
  }

  compileCount(): CompiledQuery {
    return fill(this.texts.count, this.values);
  }
}

/**
 * A list query built and compiled once, then paged with new values: building a Kysely list of a
 * couple of dozen columns and compiling it (and its count) cost ~9% of the member page's CPU. As for
 * `compiledOnce`, `build` must only place the stand-ins it is given, never compute with them: a list
 * whose text depends on which filters are set is one template per shape.
 */
export function listTemplate<K extends string, DB, TB extends keyof DB, O>(
  keys: readonly K[],
  build: (p: Record<K, unknown>, db: Executor) => SelectQueryBuilder<DB, TB, O>,
): (db: Executor, values: Record<K, unknown>) => FilledList<O> {
  let built: {
    node: SelectQueryNode;
    texts: { list: Template<string>; count: Template<string>; reversed: Template<string> | null };
  } | null = null;
  return (db, values) => {
    if (!built) {
      const query = build(slotsFor(keys), db);
      const node = query.toOperationNode();
      const reversed = reversedOrder(node);
      built = {
        node,
        texts: {
          list: templateOf(query.compile()),
          count: templateOf(countOf(query).compile()),
          reversed: reversed ? templateOf(db.getExecutor().compileQuery(reversed, createQueryId())) : null,
        },
      };
    }
    return new FilledList<O>(built.node, built.texts, values);
  };
}

/**
 * Offsets from which a page is read from whichever end of the list is nearer
 * (docs/adr/0104-deep-pages-read-from-the-nearer-end.md): below it the count a reversed read needs
 * first would cost more than the rows it skips.
 */
export const DEEP_OFFSET = 10_000;

const DIRECTION = /^\s*(asc|desc)\s*$/i;

/**
 * The order is total when its last key is a row id: then the reversed list is the list backwards,
 * ties included. Lists ordered otherwise are read forwards only.
 */
function endsWithId(item: OrderByItemNode): boolean {
  const ref = item.orderBy;
  return ReferenceNode.is(ref) && ColumnNode.is(ref.column) && ref.column.column.name === 'id';
}

/**
 * The same list in the opposite order, or null when it cannot be turned with certainty: an order
 * that does not end with an id, or a raw direction or expression (which may carry its own ASC/DESC or
 * NULLS). Explicit NULLS FIRST/LAST
 * flip too; PostgreSQL's defaults (NULLS LAST ascending, FIRST descending) already mirror each other.
 */
export function reversedOrder(node: SelectQueryNode): SelectQueryNode | null {
  const items = node.orderBy?.items;
  if (!items || items.length === 0 || !endsWithId(items[items.length - 1])) return null;
  const turned: OrderByItemNode[] = [];
  for (const item of items) {
    if (RawNode.is(item.orderBy) || item.collation) return null;
    let desc = false;
    if (item.direction) {
      const d = item.direction;
      if (!RawNode.is(d) || d.parameters.length > 0 || d.sqlFragments.length !== 1) return null;
      const m = DIRECTION.exec(d.sqlFragments[0]);
      if (!m) return null;
      desc = m[1].toLowerCase() === 'desc';
    }
    turned.push(
      OrderByItemNode.cloneWith(item, {
        direction: RawNode.createWithSql(desc ? 'asc' : 'desc'),
        nulls: item.nulls === 'first' ? 'last' : item.nulls === 'last' ? 'first' : undefined,
      }),
    );
  }
  return Object.freeze({ ...node, orderBy: OrderByNode.create(turned) });
}

function listed(compiled: CompiledQuery, prepared: string | null = null): Listed {
  return {
    compiled,
    group: `${prepared}\u0000${compiled.sql}\u0000${JSON.stringify(compiled.parameters, valueText)}`,
    prepared,
  };
}

/**
 * One page of an ordered query and the number of rows it matches, both computed in SQL
 * (docs/architecture.md §5.9): the page with limit/offset, the total with `count(*)` over the same filters.
 * The count is skipped when the page itself proves the total (a short page). Grouped or DISTINCT
 * queries must be wrapped first (`db.selectFrom(q.as('g')).selectAll()`), so the count counts groups.
 * `options.count`, where given, answers the same total some cheaper way (a tally kept by a trigger).
 *
 * `query` must be built on `db`. Pages of the same list asked for at the same time on the pool share
 * one statement (`windowRows`), and so do their counts (`listCount`); each still sees every commit
 * made before it was asked for. A shared page's rows carry two more columns (the window and the rank): `map` reads
 * the columns it names, and without a map the rows are answered as they came.
 */
export async function paginate<DB, TB extends keyof DB, O, T = O>(
  db: Executor,
  query: SelectQueryBuilder<DB, TB, O> | FilledList<O>,
  page: PageRequest,
  map?: (row: O) => T,
  { count, prepared }: PageOptions = {},
): Promise<Page<T>> {
  // A filled list's text was compiled once, out of the transaction guard's sight; its reads go
  // through batchedRead, which checks the guard itself.
  const node = query instanceof FilledList ? query.node : query.toOperationNode();
  if (!node.orderBy) throw new Error('paginate needs an ordered query, or pages would overlap');
  if (
    node.groupBy ||
    node.distinctOn ||
    node.setOperations ||
    node.frontModifiers?.some((m) => m.modifier === 'Distinct')
  ) {
    throw new Error('paginate: wrap a grouped or DISTINCT query in a subquery first');
  }
  if (node.limit || node.offset || node.endModifiers?.length)
    throw new Error('paginate: the query must have no limit, offset or locking clause of its own');
  const { limit, offset } = pageWindow(page);
  if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(offset) || limit < 1 || offset < 0)
    throw new Error(`paginate: window ${limit}/${offset}`);
  const counted = async () =>
    count
      ? count()
      : (await listCount(
          db,
          'total',
          listed(query instanceof FilledList ? query.compileCount() : countOf(query).compile()),
        ))!;
  const answer = (rows: O[], total: number): Page<T> => ({
    // A copy of the list: a window read once for two requests hands both the same array.
    list: map ? rows.map(map) : (rows.slice() as unknown as T[]),
    total,
  });
  if (offset >= DEEP_OFFSET) {
    const reversed = query instanceof FilledList ? query.compileReversed() : reversedCompiled(db, node);
    if (reversed) {
      const total = await counted();
      if (offset >= total) return answer([], total);
      const after = total - offset - limit;
      if (after < offset) {
        const window = windowKey(Math.min(limit, total - offset), Math.max(0, after));
        const read = (await windowRows(db, window, listed(reversed)))!;
        if ('error' in read) throw read.error;
        return answer((read.rows as O[]).slice().reverse(), total);
      }
    }
  }
  const read = (await windowRows(db, windowKey(limit, offset), listed(query.compile(), prepared ?? null)))!;
  if ('error' in read) throw read.error;
  const rows = read.rows as O[];
  let total: number;
  if (rows.length > 0 && rows.length < limit) total = offset + rows.length;
  else if (rows.length === 0 && offset === 0) total = 0;
  else total = await counted();
  return answer(rows, total);
}

function reversedCompiled(db: Executor, node: SelectQueryNode): CompiledQuery | null {
  const reversed = reversedOrder(node);
  return reversed ? db.getExecutor().compileQuery(reversed, createQueryId()) : null;
}
