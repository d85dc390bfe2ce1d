import type { Migration, MigrationProvider } from 'kysely/migration';
import * as m0001 from './20261122_0001_platform.js';
import * as m0002 from './20261122_0002_domain_records.js';
import * as m0003 from './20261122_0003_sales.js';
import * as m0004 from './20261122_0004_face_registry.js';
import * as m0010 from './20261123_0010_member.js';
import * as m0011 from './20261123_0011_checkin.js';
import * as m0012 from './20261123_0012_allocation.js';
import * as m0013 from './20261123_0013_bank.js';
import * as m0014 from './20261123_0014_catalog.js';
import * as m0015 from './20261123_0015_storage.js';
import * as m0016 from './20261123_0016_admin.js';
import * as m0017 from './20261124_0017_retire_login_columns.js';
import * as m0018 from './20261125_0018_statistics.js';
import * as m0019 from './20261125_0019_settlement.js';
import * as m0020 from './20261125_0020_stat_rollup.js';
import * as m0021 from './20261125_0021_stat_holder.js';
import * as m0022 from './20261125_0022_stat_card_rollup.js';
import * as m0023 from './20261126_0023_stat_check_day.js';
import * as m0024 from './20261126_0024_drop_check_card_index.js';
import * as m0025 from './20261126_0025_stat_utc_day.js';
import * as m0026 from './20261127_0026_activation_idno_key.js';
import * as m0027 from './20261127_0027_reserved_role_codes.js';
import * as m0028 from './20261127_0028_clear_stray_card_num.js';
import * as m0029 from './20261127_0029_member_tally.js';
import * as m0030 from './20261128_0030_merchant_finance_owner.js';
import * as m0031 from './20261128_0031_minimal_add_requests.js';
import * as m0032 from './20261206_0032_partitioned_history.js';
import * as m0033 from './20261206_0033_capacity_and_conflicts.js';
import * as m0034 from './20261207_0034_offline_pack.js';

/**
 * Migrations listed statically rather than read from the folder, so they load the same way under
 * tsx, a compiled build or a bundle. Names are timestamp-first and must only ever be appended.
 */
const migrations: Record<string, Migration> = {
  '20261122_0001_platform': m0001,
  '20261122_0002_domain_records': m0002,
  '20261122_0003_sales': m0003,
  '20261122_0004_face_registry': m0004,
  '20261123_0010_member': m0010,
  '20261123_0011_checkin': m0011,
  '20261123_0012_allocation': m0012,
  '20261123_0013_bank': m0013,
  '20261123_0014_catalog': m0014,
  '20261123_0015_storage': m0015,
  '20261123_0016_admin': m0016,
  '20261124_0017_retire_login_columns': m0017,
  '20261125_0018_statistics': m0018,
  '20261125_0019_settlement': m0019,
  '20261125_0020_stat_rollup': m0020,
  '20261125_0021_stat_holder': m0021,
  '20261125_0022_stat_card_rollup': m0022,
  '20261126_0023_stat_check_day': m0023,
  '20261126_0024_drop_check_card_index': m0024,
  '20261126_0025_stat_utc_day': m0025,
  '20261127_0026_activation_idno_key': m0026,
  '20261127_0027_reserved_role_codes': m0027,
  '20261127_0028_clear_stray_card_num': m0028,
  '20261127_0029_member_tally': m0029,
  '20261128_0030_merchant_finance_owner': m0030,
  '20261128_0031_minimal_add_requests': m0031,
  '20261206_0032_partitioned_history': m0032,
  '20261206_0033_capacity_and_conflicts': m0033,
  '20261207_0034_offline_pack': m0034,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
