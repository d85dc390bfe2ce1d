import type {
  LoginLogTable,
  OAuth2TokenTable,
  OpenAppTable,
  OperateLogTable,
  FacePersonTable,
  FileObjectTable,
} from './tables/platform.js';
import type { RegionTable } from './tables/region.js';
import type { AdminUserTable, RoleTable, UserRoleTable } from './tables/staff.js';
import type {
  CheckerConfigTable,
  CardCheckTable,
  CardCheckDayCountTable,
  SpotCapacityTable,
  SpotCapacitySlotTable,
  SpotAdmissionCountTable,
  CardCheckConflictTable,
  OfflinePackKeyTable,
  CardCheckFailTable,
  CardCheckFailNonceTable,
  CardCheckNonceTable,
} from './tables/checker.js';
import type { DeptTable } from './tables/dept.js';
import type { MemberContactsTable, MemberFaceTable, MemberTable, MemberTallyTable } from './tables/member.js';
import type { MerchantTable, MerchantFinanceTable } from './tables/merchant.js';
import type { ShopRelationTable, ShopTable } from './tables/shop.js';
import type { CheckerRelationTable, CheckerTable } from './tables/verifier.js';
import type {
  CardBindingTable,
  CardModelResourcePriceTable,
  CardModelResourceRuleTable,
  CardModelTable,
  CardTable,
  CardBatchTable,
  CardModelPriceHistoryTable,
} from './tables/card.js';
import type { SkuEntranceTable, SkuTable, SpuTable, TicketsSkuTable } from './tables/catalog.js';
import type { DemoDatasetTable } from './tables/demo.js';
import type { SalesTable } from './tables/sales.js';
import type { CustomDisTable, CustomDisUserTable } from './tables/custom.js';
import type { CodegenColumnTable } from './tables/codegen.js';
import type { MerchantContractTable } from './tables/contract.js';
import type {
  HotelInfoTable,
  HotelOrderRoomTable,
  HotelOrderTable,
  HotelPlanTable,
  HotelRoomTypeTable,
} from './tables/hotel.js';
import type { CouponTable, CouponTemplateTable } from './tables/coupon.js';
import type { DeferredRevenueLedgerTable, DistributeBatchTable, DistributeDetailTable } from './tables/allocation.js';
import type {
  ActivationRecordTable,
  BankUserTable,
  ChannelBusinessTable,
  ChannelInfoTable,
  ChannelOrderLogTable,
  ChannelOrderTable,
  OpenapiChannelOperatorTable,
} from './tables/bank.js';
import type { MultipartUploadPartTable, MultipartUploadTable } from './tables/storage.js';
import type {
  EstimationDetailTable,
  EstimationSheetTable,
  SettlementCheckDetailTable,
  SettlementDetailTable,
  SettlementLogTable,
  SettlementPaymentTable,
  SettlementTable,
} from './tables/settlement.js';
import type {
  StatCardUseTable,
  StatCheckDayTable,
  StatCheckFoldTable,
  StatCheckRollupTable,
  StatHolderTable,
  StatResourceDayTable,
} from './tables/statistics.js';

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
  member_tally: MemberTallyTable;
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
  sales: SalesTable;
  face_person: FacePersonTable;
  custom_dis: CustomDisTable;
  custom_dis_user: CustomDisUserTable;
  codegen_column: CodegenColumnTable;
  merchant_contract: MerchantContractTable;
  hotel_info: HotelInfoTable;
  hotel_room_type: HotelRoomTypeTable;
  hotel_plan: HotelPlanTable;
  hotel_order: HotelOrderTable;
  hotel_order_room: HotelOrderRoomTable;
  coupon_template: CouponTemplateTable;
  coupon: CouponTable;
  card_check_day_count: CardCheckDayCountTable;
  spot_capacity: SpotCapacityTable;
  spot_capacity_slot: SpotCapacitySlotTable;
  spot_admission_count: SpotAdmissionCountTable;
  card_check_conflict: CardCheckConflictTable;
  offline_pack_key: OfflinePackKeyTable;
  card_check_fail: CardCheckFailTable;
  card_check_nonce: CardCheckNonceTable;
  card_check_fail_nonce: CardCheckFailNonceTable;
  distribute_batch: DistributeBatchTable;
  distribute_detail: DistributeDetailTable;
  deferred_revenue_ledger: DeferredRevenueLedgerTable;
  channel_business: ChannelBusinessTable;
  channel_info: ChannelInfoTable;
  openapi_channel_operator: OpenapiChannelOperatorTable;
  bank_user: BankUserTable;
  channel_order: ChannelOrderTable;
  activation_record: ActivationRecordTable;
  channel_order_log: ChannelOrderLogTable;
  file_object: FileObjectTable;
  multipart_upload: MultipartUploadTable;
  multipart_upload_part: MultipartUploadPartTable;
  card_model_price_history: CardModelPriceHistoryTable;
  card_batch: CardBatchTable;
  estimation_sheet: EstimationSheetTable;
  estimation_detail: EstimationDetailTable;
  settlement: SettlementTable;
  settlement_detail: SettlementDetailTable;
  settlement_check_detail: SettlementCheckDetailTable;
  settlement_payment: SettlementPaymentTable;
  settlement_log: SettlementLogTable;
  merchant_finance: MerchantFinanceTable;
  stat_check_rollup: StatCheckRollupTable;
  stat_check_fold: StatCheckFoldTable;
  stat_holder: StatHolderTable;
  stat_card_use: StatCardUseTable;
  stat_resource_day: StatResourceDayTable;
  stat_check_day: StatCheckDayTable;
}
