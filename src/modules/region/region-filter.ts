import type { Region, RegionFilter } from './region.schemas.js';

const EXACT_FIELDS = ['name', 'parentId', 'shortName', 'levelType', 'cityCode', 'zipCode', 'mergerName', 'lng', 'lat', 'pinYin'] as const;

/**
 * RegionListRequest/RegionPageRequest filters: idList, keywords over name/shortName/pinYin
 * (case-insensitive substring), every other given field exact.
 */
export function matchRegion(filter: RegionFilter): (r: Region) => boolean {
  const ids = filter.idList?.length ? new Set(filter.idList) : null;
  const kw = filter.keywords?.trim().toLowerCase() || null;
  const exact = EXACT_FIELDS.filter((f) => filter[f] !== undefined && filter[f] !== null && filter[f] !== '');
  return (r) => {
    if (ids && !ids.has(r.id)) return false;
    for (const f of exact) if (r[f] !== filter[f]) return false;
    if (kw) {
      const hit = [r.name, r.shortName, r.pinYin].some((v) => v !== null && v.toLowerCase().includes(kw));
      if (!hit) return false;
    }
    return true;
  };
}
