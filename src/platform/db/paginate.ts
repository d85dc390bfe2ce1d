import { sql, type SelectQueryBuilder } from 'kysely';
import { pageWindow, type Page, type PageRequest } from '../http/paging.js';

/**
 * One page of an ordered query and the number of rows it matches, both computed in SQL
 * (DESIGN.md §5.9): the page with limit/offset, the total with `count(*)` over the same filters.
 * The count is skipped when the page itself proves the total (a short page). Grouped or DISTINCT
 * queries must be wrapped first (`db.selectFrom(q.as('g')).selectAll()`), so the count counts groups.
 * `count`, where given, answers the same total some cheaper way (a tally kept by a trigger).
 */
export async function paginate<DB, TB extends keyof DB, O, T = O>(
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
  const { limit, offset } = pageWindow(page);
  const rows = await query.limit(limit).offset(offset).execute();
  let total: number;
  if (rows.length > 0 && rows.length < limit) total = offset + rows.length;
  else if (rows.length === 0 && offset === 0) total = 0;
  else if (count) total = await count();
  else {
    const counted = await query
      .clearSelect()
      .clearOrderBy()
      .select(sql<string | number>`count(*)`.as('total'))
      .executeTakeFirstOrThrow();
    total = Number((counted as { total: string | number }).total);
  }
  return { list: map ? rows.map(map) : (rows as unknown as T[]), total };
}
