/** Paging conventions (DESIGN.md §5.9): pageNum from 1, pageSize 1–200, defaults 1 and 10. */
export interface PageRequest {
  pageNum?: number | null;
  pageSize?: number | null;
}

export interface Page<T> {
  list: T[];
  total: number;
}

export function pageWindow(req: PageRequest): { limit: number; offset: number } {
  const pageNum = req.pageNum ?? 1;
  const pageSize = req.pageSize ?? 10;
  return { limit: pageSize, offset: (pageNum - 1) * pageSize };
}
