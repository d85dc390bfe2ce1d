import type {
  AdminUserTable, LoginLogTable, OAuth2TokenTable, OpenAppTable, OperateLogTable, RegionTable, RoleTable, UserRoleTable,
} from './tables/platform.js';

/** Every table Kysely may touch, by its SQL name. */
export interface DB {
  region: RegionTable;
  role: RoleTable;
  admin_user: AdminUserTable;
  user_role: UserRoleTable;
  oauth2_token: OAuth2TokenTable;
  operate_log: OperateLogTable;
  login_log: LoginLogTable;
  open_app: OpenAppTable;
}
