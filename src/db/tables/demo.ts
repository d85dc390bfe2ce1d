import type { Generated } from 'kysely';
// Tables written only by the demo generator (src/seed/demo) (docs/architecture.md §4.3).

export interface DemoDatasetTable {
  id: Generated<number>;
  seed: number;
  scale: number;
  max_merchant_id: number;
  max_card_id: number;
  max_check_id: number;
  check_rows: number;
  created_at: Generated<Date>;
}
