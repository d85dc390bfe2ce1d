import type {
  AdminUserTable, LoginLogTable, OAuth2TokenTable, OpenAppTable, OperateLogTable, RegionTable, RoleTable, UserRoleTable,
} from './tables/platform.js';
import type {
  CheckerConfigTable, CheckerRelationTable, CheckerTable, DeptTable, MemberContactsTable, MemberFaceTable, MemberTable,
  MerchantTable, ShopRelationTable, ShopTable,
} from './tables/organisation.js';
import type {
  CardBindingTable, CardCheckTable, CardModelResourcePriceTable, CardModelResourceRuleTable, CardModelTable, CardTable,
  DemoDatasetTable, SkuEntranceTable, SkuTable, SpuTable, TicketsSkuTable,
} from './tables/catalog.js';

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
  merchant: MerchantTable;
  shop: ShopTable;
  shop_relation: ShopRelationTable;
  dept: DeptTable;
  checker: CheckerTable;
  checker_relation: CheckerRelationTable;
  checker_config: CheckerConfigTable;
  member: MemberTable;
  member_contacts: MemberContactsTable;
  member_face: MemberFaceTable;
  spu: SpuTable;
  sku: SkuTable;
  sku_entrance: SkuEntranceTable;
  tickets_sku: TicketsSkuTable;
  card_model: CardModelTable;
  card_model_resource_rule: CardModelResourceRuleTable;
  card_model_resource_price: CardModelResourcePriceTable;
  card: CardTable;
  card_binding: CardBindingTable;
  card_check: CardCheckTable;
  demo_dataset: DemoDatasetTable;
}
