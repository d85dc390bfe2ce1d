/**
 * The smallest request the spec allows for each operation of endpoints.tsv, keyed by "METHOD prefix+path"
 * as the file's row reads (ANY stays ANY: the test calls it with POST and with GET).
 *
 * Transcribed from docs/spec (part A §2 and §4, part B §2 and §4): only the fields marked `*`
 * (and those that "must not be blank"), in the spec's types — Long and Integer as JSON numbers, String
 * as strings, Date as "YYYY-MM-DD HH:mm:ss", Date[] as two of those. The enumerations of A 2.2 (IdType,
 * ChannelType, TicketsStatus, SettlementWay) would go as strings ("codes are strings in payloads"), but
 * the spec marks none of them required, so no request below carries one; the inline codes of B 2.6
 * (resourceType, status of SpuAddRequest) have no type in the spec and go as the numbers it lists.
 * Where the spec says "designed here" or "not shown", the request is our own documented minimum (the
 * route's schema in src/modules). Every value is one a real client would send: ids of records that exist
 * (SpecData, made by the test), a mainland mobile, an ID number with its check digit, codes read off
 * the captcha and the SMS.
 */

/** Who calls: nobody, or a session of the right kind holding every permission. */
export type Session =
  | 'none'
  /** the platform administrator, logged in through the captcha (every permission) */
  | 'staff'
  /** a staff session of its own, for the operation that ends it */
  | 'staffToEnd'
  /** a verifier posted at the scenic spot */
  | 'checker'
  | 'checkerToEnd'
  /** a mini-program member */
  | 'member'
  /** a bank operator holding every bank permission */
  | 'bank';

/** A multipart part: a text field, or a file. */
export type FormPart = [string, string | { name: string; bytes: Uint8Array; type: string }];

export interface SpecCall {
  /** the JSON body; absent: no body at all ("none" in the spec) */
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  /** a multipart/form-data body instead of JSON */
  form?: FormPart[];
  headers?: Record<string, string>;
}

export interface SpecRequest {
  session: Session;
  build(d: SpecData): SpecCall | Promise<SpecCall>;
}

type Period = [string, string];

/** The records and helpers the requests draw on; made by spec-minimal.test.ts. */
export interface SpecData {
  year: number;
  uniq(prefix: string): string;
  newMobile(): string;
  newIdNumber(): string;
  /** a small PDF and a JPEG, as a client's file picker sends them */
  files: { pdf: Uint8Array; jpeg: Uint8Array };

  auth: {
    checker: { mobile: string; password: string };
    staff: { username: string; password: string };
    /** requests a captcha image and reads it: the code and the SESSION cookie it came with */
    captcha(): Promise<{ code: string; cookie: string }>;
    /** a wx.login() code (the local mini-program provider takes any) */
    mpCode(): string;
  };
  member: {
    contactId: number;
    contactToDelete: number;
    contactToUpdate: { id: number; name: string; phone: string; identityNo: string };
    /** a JPEG served over HTTP by the test */
    facePhotoUrl: string;
    phoneToBind: string;
    /** sends the bindPhone code to the phone with the member's session and reads it off the SMS */
    smsCode(phone: string): Promise<string>;
  };
  allocation: { batchId: number; batchToDelete: number; exportBatchId: number };
  estimation: {
    cardModelId: number;
    /** a period whose calculation is held (the calc-detail pages, getEstimationCard) */
    heldPeriod: Period;
    heldId: number;
    heldDetailId: number;
    /** a period no one calculated yet: calcEstimationCard's own */
    freshPeriod: Period;
    /** a held calculation nobody submitted */
    toSubmit: number;
    /** a detail of a submitted sheet */
    submittedDetailId: number;
  };
  region: { id: number; toDelete: number; toUpdate: { id: number; name: string; levelType: number } };
  custom: { disId: number; userId: number };
  sales: { deptId: number; id: number; toDelete: number; toUpdate: { id: number; name: string; deptId: number } };
  oss: { fileKey: string; uploadId: string };
  checker: {
    configId: number;
    configToDelete: number;
    skuId: number;
    cardNumber: string;
    recordId: number;
    recordToDelete: number;
  };
  settlement: { id: number; detailId: number; toCalc: number; toDelete: number };
  bank: {
    loginMobile: string;
    password: string;
    /** a phone that has activated a card in the channel */
    activatedPhone: string;
    /** requests the SMS code for the phone and purpose (activate with the operator's session) and reads it */
    smsCode(phone: string, purpose: 'login' | 'user-login' | 'activate'): Promise<string>;
  };
  codegen: { tableId: number; id: number; toDelete: number };
  catalog: { spuId: number; merchantId: number; shopId: number; parentDeptId: number };
  hotel: { orderId: number };
}

const staff = (build: SpecRequest['build']): SpecRequest => ({ session: 'staff', build });
const none: SpecCall = {};

export const SPEC_REQUESTS: Record<string, SpecRequest> = {
  // A 4.1 auth
  'POST /app-api/auth/checkerLogin': {
    session: 'none',
    build: (d) => ({ body: { mobile: d.auth.checker.mobile, password: d.auth.checker.password } }),
  },
  'POST /app-api/auth/checkerLogout': { session: 'checkerToEnd', build: () => none },
  'POST /manage-api/auth/login': {
    session: 'none',
    // LoginRequest plus the captcha code (A 5.3): the code is held in the session the image's cookie names.
    build: async (d) => {
      const { code, cookie } = await d.auth.captcha();
      return { body: { username: d.auth.staff.username, password: d.auth.staff.password, code }, headers: { cookie } };
    },
  },
  'POST /manage-api/auth/logout': { session: 'staffToEnd', build: () => none },
  'GET /manage-api/auth/getRandomCodeImg': { session: 'none', build: () => none },
  // designed here: MpLoginRequest {code*}
  'POST /app-api/auth/oauth2': { session: 'none', build: (d) => ({ body: { code: d.auth.mpCode() } }) },

  // A 4.2 member
  'POST /mp-api/memberContacts/addMemberContacts': {
    session: 'member',
    build: (d) => ({ body: { name: '李娜', phone: d.newMobile(), identityNo: d.newIdNumber() } }),
  },
  'POST /mp-api/memberContacts/deleteMemberContacts': {
    session: 'member',
    build: (d) => ({ body: { id: d.member.contactToDelete } }),
  },
  'POST /mp-api/memberContacts/getMemberContacts': {
    session: 'member',
    build: (d) => ({ body: { id: d.member.contactId } }),
  },
  'POST /mp-api/memberContacts/queryMemberContactsList': { session: 'member', build: () => ({ body: {} }) },
  'POST /mp-api/memberContacts/updateMemberContacts': {
    session: 'member',
    build: (d) => {
      const c = d.member.contactToUpdate;
      return {
        body: { id: c.id, name: c.name, phone: c.phone, identityNo: c.identityNo, facePhoto: d.member.facePhotoUrl },
      };
    },
  },
  'POST /mp-api/member/bindPhone': {
    session: 'member',
    build: async (d) => ({
      body: { phone: d.member.phoneToBind, smsCode: await d.member.smsCode(d.member.phoneToBind) },
    }),
  },
  'POST /mp-api/member/getMember': { session: 'member', build: () => none },
  'POST /manage-api/member/queryMemberPage': staff(() => ({ body: {} })),

  // A 4.3 allocation
  'POST /manage-api/distributeAmount/deleteDistributeBatch': staff((d) => ({
    body: { id: d.allocation.batchToDelete },
  })),
  'POST /manage-api/distributeAmount/executeCalc': staff((d) => ({ body: { year: d.year } })),
  // designed here: {batchId*}
  'POST /manage-api/distributeAmount/exportDistributeDetail': staff((d) => ({
    body: { batchId: d.allocation.exportBatchId },
  })),
  'POST /manage-api/distributeAmount/getDistributeBatch': staff((d) => ({ body: { id: d.allocation.batchId } })),
  'POST /manage-api/distributeAmount/previewCalc': staff((d) => ({ body: { year: d.year } })),
  'POST /manage-api/distributeAmount/queryDistributeBatchPage': staff(() => ({ body: {} })),
  // designed here: {batchId*, keywords}
  'POST /manage-api/distributeAmount/queryDistributeDetailPage': staff((d) => ({
    body: { batchId: d.allocation.batchId },
  })),

  // A 4.4 estimation
  'POST /manage-api/estimation/queryEstimationCardCheckDetailPage': staff((d) => ({
    body: { estimationDetailId: d.estimation.submittedDetailId },
  })),
  'POST /manage-api/estimation/calcEstimationCard': staff((d) => ({
    body: {
      cardModelId: d.estimation.cardModelId,
      profit: 3333,
      issueNum: 7,
      estimationPeriod: d.estimation.freshPeriod,
    },
  })),
  'POST /manage-api/estimation/getEstimationCard': staff((d) => ({ body: { id: d.estimation.heldId } })),
  'POST /manage-api/estimation/getEstimationCardIssueNum': staff((d) => ({
    body: { cardModelId: d.estimation.cardModelId, estimationPeriod: d.estimation.heldPeriod },
  })),
  'POST /manage-api/estimation/queryEstimationCardCalcDetailPage': staff((d) => ({
    body: { cardModelId: d.estimation.cardModelId, estimationPeriod: d.estimation.heldPeriod },
  })),
  'POST /manage-api/estimation/queryEstimationCardCheckCalcDetailPage': staff((d) => ({
    body: {
      cardModelId: d.estimation.cardModelId,
      estimationPeriod: d.estimation.heldPeriod,
      id: d.estimation.heldDetailId,
    },
  })),
  'POST /manage-api/estimation/queryEstimationCardPage': staff(() => ({ body: {} })),
  // designed here: {id*} of a held calculation
  'POST /manage-api/estimation/submitEstimationCard': staff((d) => ({ body: { id: d.estimation.toSubmit } })),

  // A 4.5 region
  'POST /manage-api/region/addRegion': staff((d) => ({ body: { name: d.uniq('测试省'), levelType: 1 } })),
  'POST /manage-api/region/deleteRegion': staff((d) => ({ body: { id: d.region.toDelete } })),
  'POST /manage-api/region/getRegion': staff((d) => ({ body: { id: d.region.id } })),
  'POST /open-api/region/queryRegionList': staff(() => ({ body: {} })),
  'POST /manage-api/region/queryRegionPage': staff(() => ({ body: {} })),
  'POST /manage-api/region/queryRegionTree': staff(() => none),
  'POST /manage-api/region/updateRegion': staff((d) => {
    const r = d.region.toUpdate;
    return { body: { id: r.id, name: `${r.name}（新）`, levelType: r.levelType } };
  }),

  // A 4.6 custom distributors: {name String} to add, {id Long} to update
  'POST /manage-api/custom/addCustomDis': staff((d) => ({ body: { name: d.uniq('西湖旅行社') } })),
  'POST /manage-api/custom/queryCustomDisList': staff(() => ({ body: {} })),
  'POST /manage-api/custom/queryCustomDisPage': staff(() => ({ body: {} })),
  'POST /manage-api/custom/updateCustomDis': staff((d) => ({ body: { id: d.custom.disId } })),
  'POST /manage-api/custom/addCustomDisUser': staff(() => ({ body: { name: '导游小王' } })),
  'POST /manage-api/custom/queryCustomDisUserList': staff(() => ({ body: {} })),
  'POST /manage-api/custom/queryCustomDisUserPage': staff(() => ({ body: {} })),
  'POST /manage-api/custom/updateCustomDisUser': staff((d) => ({ body: { id: d.custom.userId } })),
  // designed here: {customDisId*, users*: [{name*, mobile*}]}
  'POST /open-api/custom/batchAdd': staff((d) => ({
    body: { customDisId: d.custom.disId, users: [{ name: '导游小李', mobile: d.newMobile() }] },
  })),

  // A 4.7 sales
  'POST /manage-api/sales/addSales': staff((d) => ({ body: { name: d.uniq('城东销售点'), deptId: d.sales.deptId } })),
  'POST /manage-api/sales/deleteSales': staff((d) => ({ body: { id: d.sales.toDelete } })),
  'POST /manage-api/sales/getSales': staff((d) => ({ body: { id: d.sales.id } })),
  'POST /manage-api/sales/querySalesList': staff(() => ({ body: {} })),
  'POST /manage-api/sales/querySalesPage': staff(() => ({ body: {} })),
  'POST /manage-api/sales/updateSales': staff((d) => {
    const s = d.sales.toUpdate;
    return { body: { id: s.id, name: `${s.name}（改）`, deptId: s.deptId } };
  }),

  // A 4.8 area
  'POST /manage-api/system/area/get-by-ip': staff(() => ({ query: { ip: '202.96.134.133' } })),
  'POST /manage-api/system/area/tree': staff(() => none),

  // A 4.9 object storage
  // designed here: {fileKey*}
  'POST /manage-api/oss/download': staff((d) => ({ body: { fileKey: d.oss.fileKey } })),
  'POST /manage-api/oss/multipartFileInit': staff(() => ({ body: { fileName: '景区导览.pdf' } })),
  'POST /manage-api/oss/multipartUpload': staff((d) => ({
    form: [
      ['uploadId', d.oss.uploadId],
      ['totalChunks', '1'],
      ['chunkNumber', '1'],
      ['fileKey', 'guides/scenic-guide.pdf'],
      ['file', { name: '景区导览.pdf', bytes: d.files.pdf, type: 'application/pdf' }],
    ],
  })),
  // login-free; the file part is not required (A 4.9): none is sent
  'POST /open-api/oss/uploadWithFaceCheck': { session: 'none', build: () => ({ form: [] }) },
  // designed here: multipart part "file"
  'POST /open-api/oss/upload': staff((d) => ({
    form: [['file', { name: 'ticket.jpg', bytes: d.files.jpeg, type: 'image/jpeg' }]],
  })),
  // designed here: {fileName*, content*} (base64)
  'POST /open-api/oss/uploadBase64': staff((d) => ({
    body: { fileName: 'ticket.jpg', content: Buffer.from(d.files.jpeg).toString('base64') },
  })),

  // B 4.1 statistics
  'POST /manage-api/profitAccounting/cardModel': staff(() => ({ body: {} })),
  // designed here: every filter optional
  'ANY /manage-api/statistics/exportStatCardIssue': staff(() => ({ body: {} })),
  'POST /manage-api/statistics/statCardIssue': staff(() => ({ body: {} })),
  'POST /manage-api/statistics/statCardStat': staff(() => ({ body: {} })),
  'POST /open-api/statistics/statCardModel': staff(() => ({ body: {} })),
  'POST /manage-api/statistics/statCardArea': staff(() => ({ body: {} })),
  'POST /manage-api/statistics/statHomeCardCheckNum': staff(() => ({ body: {} })),
  'POST /manage-api/statistics/statHomeCardSalesAmount': staff(() => ({ body: {} })),

  // B 4.2 checker: config {name} to add, {id} to update
  'POST /manage-api/checker/addCheckerConfig': staff(() => ({ body: { name: '核销方式' } })),
  'POST /manage-api/checker/deleteCheckerConfig': staff((d) => ({ body: { id: d.checker.configToDelete } })),
  'POST /manage-api/checker/getCheckerConfig': staff((d) => ({ body: { id: d.checker.configId } })),
  'POST /manage-api/checker/queryCheckerConfigList': staff(() => ({ body: {} })),
  'POST /manage-api/checker/queryCheckerConfigPage': staff(() => ({ body: {} })),
  'POST /manage-api/checker/updateCheckerConfig': staff((d) => ({ body: { id: d.checker.configId } })),
  // designed here (the spec shows a placeholder): our minimal check-in, {skuId*, cardNumber}
  'POST /app-api/checker/addCheckerConsumeRecord': {
    session: 'checker',
    build: (d) => ({ body: { skuId: d.checker.skuId, cardNumber: d.checker.cardNumber } }),
  },
  // skuId* is a String in CheckerCardCheckStatRequest
  'ANY /app-api/checker/cardCheckStat': {
    session: 'checker',
    build: (d) => ({ body: { skuId: String(d.checker.skuId) } }),
  },
  'POST /app-api/checker/deleteCheckerConsumeRecord': {
    session: 'checker',
    build: (d) => ({ body: { id: d.checker.recordToDelete } }),
  },
  'POST /app-api/checker/getCheckerConsumeRecord': {
    session: 'checker',
    build: (d) => ({ body: { id: d.checker.recordId } }),
  },

  // B 4.3 settlement
  // designed here: {settlementDetailId*, keywords}
  'ANY /manage-api/settlement/exportSettlementCardCheckDetailPage': staff((d) => ({
    body: { settlementDetailId: d.settlement.detailId },
  })),
  'POST /manage-api/settlement/querySettlementCardCheckDetailPage': staff((d) => ({
    body: { settlementDetailId: d.settlement.detailId },
  })),
  'POST /manage-api/settlement/afreshSettlementCard': staff((d) => ({
    body: { settlementId: d.settlement.id, settlementDetailId: d.settlement.detailId },
  })),
  'POST /manage-api/settlement/calcSettlementCard': staff((d) => ({ body: { id: d.settlement.toCalc } })),
  'POST /manage-api/settlement/deleteSettlementCard': staff((d) => ({ body: { id: d.settlement.toDelete } })),
  'POST /manage-api/settlement/getInvoiceSettlementCard': staff((d) => ({ body: { id: d.settlement.id } })),
  'POST /manage-api/settlement/getSettlementCard': staff((d) => ({ body: { id: d.settlement.id } })),

  // B 4.4 bank channel
  'POST /manage-api/bank/activateBankCard': {
    session: 'bank',
    // userName and userIdno must not be blank; the verification code is read from the request (rule 1)
    build: async (d) => {
      const phone = d.newMobile();
      return {
        body: {
          userName: '张伟',
          phone,
          userIdno: d.newIdNumber(),
          verifyCode: await d.bank.smsCode(phone, 'activate'),
        },
      };
    },
  },
  'POST /manage-api/bank/bankLogin': {
    session: 'none',
    build: async (d) => ({
      body: {
        mobile: d.bank.loginMobile,
        password: d.bank.password,
        verifyCode: await d.bank.smsCode(d.bank.loginMobile, 'login'),
      },
    }),
  },
  'POST /manage-api/bank/bankOperatorList': { session: 'bank', build: () => none },
  'POST /manage-api/bank/bankStat': { session: 'bank', build: () => ({ body: {} }) },
  'POST /manage-api/bank/bankUserLogin': {
    session: 'none',
    build: async (d) => ({
      body: { mobile: d.bank.activatedPhone, verifyCode: await d.bank.smsCode(d.bank.activatedPhone, 'user-login') },
    }),
  },
  // designed here: the bankStat filters, all optional
  'POST /manage-api/bank/exportBankStatDetail': { session: 'bank', build: () => ({ body: {} }) },
  'POST /manage-api/bank/getActivationDetailList': { session: 'bank', build: () => ({ body: {} }) },

  // B 4.5 codegen: every field of the column definition but dictType and example
  'POST /manage-api/infra/codegen/addCodegenColumn': staff((d) => ({
    body: {
      tableId: d.codegen.tableId,
      columnName: 'card_number',
      dataType: 'varchar(32)',
      columnComment: '卡号',
      nullable: false,
      primaryKey: false,
      autoIncrement: 'false',
      ordinalPosition: 2,
      javaType: 'String',
      javaField: 'cardNumber',
      createOperation: true,
      updateOperation: true,
      listOperation: true,
      listOperationCondition: '=',
      listOperationResult: true,
      htmlType: 'input',
    },
  })),
  'POST /manage-api/infra/codegen/deleteCodegenColumn': staff((d) => ({ body: { id: d.codegen.toDelete } })),
  'POST /manage-api/infra/codegen/getCodegenColumn': staff((d) => ({ body: { id: d.codegen.id } })),
  'POST /manage-api/infra/codegen/queryCodegenColumnList': staff(() => ({ body: {} })),
  'POST /manage-api/infra/codegen/queryCodegenColumnPage': staff(() => ({ body: {} })),

  // B 4.6 catalog, shop, contract, department, resource
  'POST /manage-api/sku/addSku': staff((d) => ({ body: { goodsId: d.catalog.spuId, skuName: '成人票' } })),
  'POST /manage-api/shop/addShop': staff((d) => ({
    body: { merchantId: d.catalog.merchantId, name: d.uniq('灵隐景区') },
  })),
  // no field of MerchantContractAddRequest is marked required
  'POST /manage-api/merchantContract/addMerchantContract': staff(() => ({ body: {} })),
  'POST /manage-api/system/dept/addDept': staff((d) => ({
    body: { name: d.uniq('票务部'), parentId: d.catalog.parentDeptId, sort: 1 },
  })),
  'POST /manage-api/spu/addSpu': staff((d) => ({
    body: { name: d.uniq('千岛湖'), shopId: d.catalog.shopId, resourceType: 2, status: 1 },
  })),

  // B 4.7 hotel order, coupon template
  'POST /manage-api/hotelApi/getHotelOrderDetail': staff((d) => ({ body: { id: d.hotel.orderId } })),
  'POST /manage-api/promotion/couponTemplate/queryPromotionCouponTemplatePage': staff(() => ({ body: {} })),
};
