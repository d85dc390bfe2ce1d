import { CompiledQuery, sql, type SelectQueryBuilder } from 'kysely';
import { pageWindow, type Page, type PageRequest } from '../http/paging.js';
import { batchedRead } from './batched-read.js';
import type { Executor } from './executor.js';

/** A list's query compiled once per request; reads whose lists are the same text and values share statements. */
type Listed = { compiled: CompiledQuery; group: string };

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

/** The ordered list's text with a window: `limit`/`offset` are integers checked by the caller, so inlined. */
const windowed = (list: CompiledQuery, limit: number, offset: number) => `${list.sql} limit ${limit} offset ${offset}`;

/**
 * Pages of one list (same text, same values) that requests ask for at the same time, read by one
 * statement: on PostgreSQL each statement is a round trip and a wake-up of a backend, which cost a page
 * read more than its index scan (decisions.md, "Pages read at the same time share a statement"). One
 * window alone is the list's own statement; several are a UNION ALL of them, each numbered and its rows
 * ranked, so each is planned with its own constant limit and offset exactly as it would be alone. A
 * window asked for twice is read once. When the shared statement fails (a row of one window that
 * cannot be read, a timeout), each window is read again alone, so a page fails only as it would have
 * failed alone.
 */
const windowRows = batchedRead<string, WindowRead, Listed>(async (db, keys, { compiled }) => {
  const windows = keys.map((k) => k.split(':').map(Number) as [number, number]);
  const alone = async ([limit, offset]: [number, number]): Promise<WindowRead> => {
    try {
      return { rows: (await db.executeQuery(CompiledQuery.raw(windowed(compiled, limit, offset), [...compiled.parameters]))).rows };
    } catch (error) {
      return { error };
    }
  };
  if (windows.length === 1) return [[keys[0], await alone(windows[0])]];
  // Every branch is the same list with the same values, so they share its parameters ($1 … $n).
  const text = windows
    .map(([limit, offset], i) => `(select p.*, ${i} as ${WINDOW}, row_number() over () as ${RANK} from (${windowed(compiled, limit, offset)}) p)`)
    .join(' union all ');
  let rows: Array<Record<string, unknown>>;
  try {
    ({ rows } = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`${text} order by ${WINDOW}, ${RANK}`, [...compiled.parameters])));
  } catch {
    return Promise.all(keys.map(async (k, i) => [k, await alone(windows[i])] as const));
  }
  const byWindow: unknown[][] = keys.map(() => []);
  for (const r of rows) byWindow[Number(r[WINDOW])].push(r);
  return keys.map((k, i) => [k, { rows: byWindow[i] }] as const);
}, (l) => l.group, { maxKeys: WINDOWS_PER_STATEMENT });

/** Counts of one list made at the same time: one statement. */
const listCount = batchedRead<'total', number, Listed>(async (db, _keys, { compiled }) => {
  const { rows } = await db.executeQuery<{ total: string | number }>(compiled);
  return [['total', Number(rows[0].total)]];
}, (l) => l.group);

// Values of a list's filters as a key: bigints as text (JSON has none), dates by their instant.
const valueText = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v);

function listed(query: { compile(): CompiledQuery }): Listed {
  const compiled = query.compile();
  return { compiled, group: `${compiled.sql}\u0000${JSON.stringify(compiled.parameters, valueText)}` };
}

/**
 * One page of an ordered query and the number of rows it matches, both computed in SQL
 * (DESIGN.md §5.9): the page with limit/offset, the total with `count(*)` over the same filters.
 * The count is skipped when the page itself proves the total (a short page). Grouped or DISTINCT
 * queries must be wrapped first (`db.selectFrom(q.as('g')).selectAll()`), so the count counts groups.
 * `count`, where given, answers the same total some cheaper way (a tally kept by a trigger).
 *
 * `query` must be built on `db`. Pages of the same list asked for at the same time on the pool share
 * one statement (`windowRows`), and so do their counts (`listCount`); each still sees every commit
 * made before it was asked for. A shared page's rows carry two more columns (the window and the rank): `map` reads
 * the columns it names, and without a map the rows are answered as they came.
 */
export async function paginate<DB, TB extends keyof DB, O, T = O>(
  db: Executor,
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  map?: (row: O) => T,
  count?: () => Promise<number>,
): Promise<Page<T>> {
  const node = query.toOperationNode();
  if (!node.orderBy) throw new Error('paginate needs an ordered query, or pages would overlap');
  if (node.groupBy || node.distinctOn || node.setOperations || node.frontModifiers?.some((m) => m.modifier === 'Distinct')) {
    throw new Error('paginate: wrap a grouped or DISTINCT query in a subquery first');
  }
  if (node.limit || node.offset || node.endModifiers?.length) throw new Error('paginate: the query must have no limit, offset or locking clause of its own');
  const { limit, offset } = pageWindow(page);
  if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(offset) || limit < 1 || offset < 0) throw new Error(`paginate: window ${limit}/${offset}`);
  const read = (await windowRows(db, windowKey(limit, offset), listed(query)))!;
  if ('error' in read) throw read.error;
  const rows = read.rows as O[];
  let total: number;
  if (rows.length > 0 && rows.length < limit) total = offset + rows.length;
  else if (rows.length === 0 && offset === 0) total = 0;
  else if (count) total = await count();
  else total = (await listCount(db, 'total', listed(query.clearSelect().clearOrderBy().select(sql<string | number>`count(*)`.as('total')))))!;
  // A copy of the list: a window read once for two requests hands both the same array.
  return { list: map ? rows.map(map) : (rows.slice() as unknown as T[]), total };
}
