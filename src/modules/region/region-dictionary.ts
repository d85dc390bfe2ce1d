import type { RegionValues } from './region.repository.js';

/** The region dictionary's rows, for the first seed; its dataset and pinyin dictionary load only then, not at every start. */
export async function regionDictionaryRows(): Promise<Array<RegionValues & { id: number }>> {
  const { buildRegionRows } = await import('./region-rows.js');
  return buildRegionRows();
}
