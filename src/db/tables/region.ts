import type { Generated } from 'kysely';
import type { Audit, Numeric } from './common.js';
// Tables written only by the region module (docs/architecture.md §4.3).

export interface RegionTable extends Audit {
  id: Generated<number>;
  name: string;
  parent_id: Generated<number>;
  short_name: string | null;
  level_type: number;
  city_code: string | null;
  zip_code: string | null;
  merger_name: string | null;
  lng: Numeric;
  lat: Numeric;
  pin_yin: string | null;
}
