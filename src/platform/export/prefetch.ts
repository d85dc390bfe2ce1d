/**
 * Keyset batches read one ahead: while the export writes batch k, the read of batch k + 1 (after k's
 * last row) is already running, so the database and the workbook writer work side by side instead of
 * in turn. Wrap an `XlsxExport` spec's `batches` with it; a read that is never asked for (the client
 * went away) is left to finish and dropped.
 */
export function readAhead<R>(
  read: (after: R | null, limit: number) => Promise<R[]>,
): (after: R | null, limit: number) => Promise<R[]> {
  let ahead: { after: R; limit: number; rows: Promise<R[]> } | null = null;
  return async (after, limit) => {
    const pending =
      ahead !== null && after !== null && ahead.after === after && ahead.limit === limit ? ahead.rows : null;
    ahead = null;
    const rows = await (pending ?? read(after, limit));
    if (rows.length === limit) {
      const last = rows[rows.length - 1];
      const next = read(last, limit);
      next.catch(() => {}); // surfaces when it is asked for; unasked, it must not be an unhandled rejection
      ahead = { after: last, limit, rows: next };
    }
    return rows;
  };
}
