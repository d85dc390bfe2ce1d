import { RawJson } from '../../platform/http/responses.js';
import type { Region, RegionFilter } from './region.schemas.js';

/** Serialised pages an index keeps (the oldest goes first): ≤ 200 regions of ~0.2 KB each per page. */
const PAGE_ANSWERS_KEPT = 128;

const EXACT_FIELDS = [
  'name',
  'parentId',
  'shortName',
  'levelType',
  'cityCode',
  'zipCode',
  'mergerName',
  'lng',
  'lat',
  'pinYin',
] as const;

/**
 * RegionListRequest/RegionPageRequest filters: idList, keywords over name/shortName/pinYin
 * (case-insensitive substring), every other given field exact.
 */
export function matchRegion(filter: RegionFilter): (r: Region) => boolean {
  const ids = filter.idList?.length ? new Set(filter.idList) : null;
  const kw = filter.keywords?.trim().toLowerCase() || null;
  const exact = exactFields(filter);
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

const exactFields = (filter: RegionFilter) =>
  EXACT_FIELDS.filter((f) => filter[f] !== undefined && filter[f] !== null && filter[f] !== '');

/**
 * The cached region list with the lookups the filters use most (parent, level, id), so a page reads
 * the few candidates a filter can match instead of every region, and builds only the page it answers.
 */
export class RegionIndex {
  private readonly byId = new Map<number, Region>();
  private readonly position = new Map<number, number>();
  private readonly byParent = new Map<number, Region[]>();
  private readonly byLevel = new Map<number, Region[]>();
  /** Pages answered while this index lives (one cache generation), serialised, by request. */
  private readonly pageAnswers = new Map<string, RawJson>();

  constructor(readonly all: Region[]) {
    for (const [i, r] of all.entries()) {
      this.byId.set(r.id, r);
      this.position.set(r.id, i);
      push(this.byParent, r.parentId, r);
      push(this.byLevel, r.levelType, r);
    }
  }

  /**
   * The smallest list that holds every region the filter can match, in the list's order, and whether
   * every region in it matches (the filter asks for nothing but what chose the list).
   */
  private candidates(filter: RegionFilter): { list: Region[]; allMatch: boolean } {
    const kw = filter.keywords?.trim() ?? '';
    const exact = exactFields(filter);
    if (filter.idList?.length) {
      const ids = new Set(filter.idList);
      const found = [...ids].map((id) => this.byId.get(id)).filter((r): r is Region => r !== undefined);
      return {
        list: found.sort((a, b) => this.position.get(a.id)! - this.position.get(b.id)!),
        allMatch: kw === '' && exact.length === 0,
      };
    }
    const lists: Array<{ list: Region[]; by: string | null }> = [{ list: this.all, by: null }];
    if (filter.parentId !== undefined && filter.parentId !== null)
      lists.push({ list: this.byParent.get(filter.parentId) ?? [], by: 'parentId' });
    if (filter.levelType !== undefined && filter.levelType !== null)
      lists.push({ list: this.byLevel.get(filter.levelType) ?? [], by: 'levelType' });
    const chosen = lists.reduce((a, b) => (b.list.length < a.list.length ? b : a));
    return { list: chosen.list, allMatch: kw === '' && exact.every((f) => f === chosen.by) };
  }

  /**
   * The page's answer as bytes, serialised once per request while the index lives: the region pages a
   * picker asks for are few and asked again and again, and serialising them was the larger part of
   * answering them (they also get an ETag and 304, as the other cached reads).
   */
  pageAnswer(request: RegionFilter, offset: number, limit: number): RawJson {
    const key = JSON.stringify([request, offset, limit]);
    let answer = this.pageAnswers.get(key);
    if (!answer) {
      answer = new RawJson(JSON.stringify(this.page(request, offset, limit)));
      if (this.pageAnswers.size >= PAGE_ANSWERS_KEPT) this.pageAnswers.delete(this.pageAnswers.keys().next().value!);
      this.pageAnswers.set(key, answer);
    }
    return answer;
  }

  /** The matches in [offset, offset + limit) and how many match in all. */
  page(filter: RegionFilter, offset: number, limit: number): { list: Region[]; total: number } {
    const { list: candidates, allMatch } = this.candidates(filter);
    // A page of a parent's children or of a level, the usual picker call, is a slice of its list.
    if (allMatch) return { list: candidates.slice(offset, offset + limit), total: candidates.length };
    const match = matchRegion(filter);
    const list: Region[] = [];
    let total = 0;
    for (const r of candidates) {
      if (!match(r)) continue;
      if (total >= offset && list.length < limit) list.push(r);
      total++;
    }
    return { list, total };
  }
}

function push<K>(map: Map<K, Region[]>, key: K, r: Region): void {
  const list = map.get(key);
  if (list) list.push(r);
  else map.set(key, [r]);
}
