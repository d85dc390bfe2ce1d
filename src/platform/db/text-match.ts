import { sql, type Expression, type SqlBool } from 'kysely';

/** `%text%` for ILIKE with the user's own % _ and \ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The `keywords` filter of the list and page requests: the trimmed text found, case-insensitively,
 * in any of the columns. Null when there is nothing to match (no filter).
 */
export function keywordsCondition(
  keywords: string | null | undefined,
  columns: readonly string[],
): Expression<SqlBool> | null {
  const text = keywords?.trim();
  if (!text) return null;
  const pattern = containsPattern(text);
  return sql<SqlBool>`(${sql.join(
    columns.map((c) => sql`${sql.ref(c)} ilike ${pattern}`),
    sql` or `,
  )})`;
}
