/**
 * Paging conventions (docs/adr/0026-paging-as-a-java-client-uses-it.md): pageNum from 1, pageSize
 * 1–200, defaults 1 and 10. Out-of-range values are read, not refused, as PageHelper's `reasonable`
 * mode reads them: pageNum ≤ 0 is page 1, pageSize above 200 is 200, pageSize ≤ 0 is the default.
 */
export interface PageRequest {
  pageNum?: number | null;
  pageSize?: number | null;
}

export interface Page<T> {
  list: T[];
  total: number;
}

export const PAGE_SIZE_DEFAULT = 10;
export const PAGE_SIZE_MAX = 200;
/** The furthest page whose offset stays an exact integer at the largest page size (an empty page anyway). */
const PAGE_NUM_MAX = Math.floor(Number.MAX_SAFE_INTEGER / PAGE_SIZE_MAX);

export function pageWindow(req: PageRequest): { limit: number; offset: number } {
  const pageNum = Math.min(Math.max(req.pageNum ?? 1, 1), PAGE_NUM_MAX);
  const asked = req.pageSize ?? PAGE_SIZE_DEFAULT;
  const pageSize = asked <= 0 ? PAGE_SIZE_DEFAULT : Math.min(asked, PAGE_SIZE_MAX);
  return { limit: pageSize, offset: (pageNum - 1) * pageSize };
}
