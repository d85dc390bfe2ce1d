import { checkerMobile, type IdAllocator } from './ids.js';
import { SPOTS, type Organisation } from './organisation.js';
import { fromObjects, type Cell, type TableRows } from './rows.js';

/**
 * The twenty scenic spots as resources (spu resource_type 2), what is sold of them (sku, one or two
 * per spot), their gates (sku_entrance), ticket kinds (tickets_sku) and the verifiers posted at the
 * gates (checker, checker_relation per gate, checker_config).
 */

export interface GatePlan {
  entranceId: number;
  /** verifiers related to this SKU and gate; kiosk[i] tells whether checkers[i] is a self-service kiosk */
  checkers: number[];
  kiosk: boolean[];
}

export interface SkuPlan {
  skuId: number;
  gates: GatePlan[];
}

export interface SpotPlan {
  index: number;
  spuId: number;
  merchantId: number;
  shopId: number;
  /** ticket price in cents */
  priceCents: number;
  skus: SkuPlan[];
}

export interface ScenicCatalog {
  spots: SpotPlan[];
  /** the demo verifier (mobile 13800000001) */
  demoCheckerId: number;
  checkerMobiles: string[];
  tables: TableRows[];
}

type Row = Record<string, Cell>;

/** The spots of operator 0 (merchant01's merchant), where the demo verifier works. */
const DEMO_CHECKER_OPERATOR = 0;

export function buildScenicCatalog(ids: IdAllocator, org: Organisation, passwordHash: string): ScenicCatalog {
  const spus: Row[] = [];
  const skus: Row[] = [];
  const entrances: Row[] = [];
  const tickets: Row[] = [];
  const spots: SpotPlan[] = SPOTS.map((def, index) => {
    const { shopId, merchantId } = org.spotShops[index];
    const priceCents = def.price * 100;
    const spuId = ids.next('spu');
    spus.push({
      id: spuId,
      name: def.name,
      shop_id: shopId,
      merchant_id: merchantId,
      resource_type: 2,
      cost_price: priceCents,
      stock: null,
      status: 1,
      description: `${def.name}（${def.level}）`,
    });
    const skuNames = [`${def.name}门票`, ...(def.extraSku ? [def.extraSku] : [])];
    const plans = skuNames.map((skuName, k): SkuPlan => {
      const skuId = ids.next('sku');
      const showPrice = k === 0 ? priceCents : Math.round(priceCents * 0.6);
      skus.push({
        id: skuId,
        goods_id: spuId,
        merchant_id: merchantId,
        shop_id: shopId,
        sku_name: skuName,
        show_price: showPrice,
        buy_price: showPrice,
        cost_price: Math.round(showPrice * 0.7),
        stock: 999999,
        mold: 1,
        card_num: null,
        status: 1,
      });
      const gateNames = k === 0 ? def.entrances : def.entrances.slice(0, 1);
      const gates = gateNames.map((entranceName): GatePlan => {
        const entranceId = ids.next('sku_entrance');
        entrances.push({
          id: entranceId,
          sku_id: skuId,
          entrance_name: entranceName,
          merchant_id: merchantId,
          shop_id: shopId,
          goods_id: spuId,
        });
        return { entranceId, checkers: [], kiosk: [] };
      });
      if (k === 0) {
        const kinds: Array<[string, string, number, number]> = [
          ['adult', '成人票', priceCents, 1],
          ['child', '儿童票（1.2–1.5 米）', Math.round(priceCents / 2), index % 3 === 0 ? 2 : 1],
          ['senior', '老年票（60–69 周岁）', Math.round(priceCents / 2), index % 4 === 1 ? 3 : 1],
        ];
        for (const [typeId, typeInfo, basePrice, status] of kinds) {
          tickets.push({
            id: ids.next('tickets_sku'),
            sku_id: skuId,
            merchant_id: merchantId,
            shop_id: shopId,
            tickets_id: null,
            sku_name: `${def.name}${typeInfo.replace(/（.*$/, '')}`,
            type_id: typeId,
            type_info: typeInfo,
            book_type: 1,
            id_limit_flag: typeId === 'adult',
            id_limit_days: typeId === 'adult' ? 1 : null,
            id_limit_num: typeId === 'adult' ? 5 : null,
            base_price: basePrice,
            enter_type: '刷身份证或扫码入园',
            enter_start: '07:30:00',
            enter_end: '17:30:00',
            refund_type: 1,
            refund_days: 1,
            refund_policy: '游玩日前一天 18:00 前可免费退',
            status,
          });
        }
      }
      return { skuId, gates };
    });
    return { index, spuId, merchantId, shopId, priceCents, skus: plans };
  });

  const checkers: Row[] = [];
  const relations: Row[] = [];
  const configs: Row[] = [];
  let mobileSerial = 0;
  const addChecker = (name: string, merchantId: number, shopId: number, kiosk: boolean, posts: SpotPlan[]) => {
    const id = ids.next('checker');
    checkers.push({
      id,
      mobile: checkerMobile(++mobileSerial),
      password_hash: passwordHash,
      name,
      merchant_id: merchantId,
      shop_id: shopId,
      status: 1,
      ssk_flag: kiosk,
    });
    for (const spot of posts) {
      for (const sku of spot.skus) {
        for (const gate of sku.gates) {
          relations.push({
            id: ids.next('checker_relation'),
            checker_id: id,
            sku_id: sku.skuId,
            entrance_id: gate.entranceId,
            merchant_id: spot.merchantId,
            shop_id: spot.shopId,
          });
          gate.checkers.push(id);
          gate.kiosk.push(kiosk);
        }
      }
    }
    return id;
  };

  const demoSpots = spots.filter((s) => SPOTS[s.index].operator === DEMO_CHECKER_OPERATOR);
  const demoCheckerId = addChecker('演示核验员', demoSpots[0].merchantId, demoSpots[0].shopId, false, demoSpots);
  configs.push(
    {
      id: ids.next('checker_config'),
      checker_id: demoCheckerId,
      name: '核验方式',
      config_type: 1,
      item: 'checkTypes',
      value: '1,2,3',
      remark: '刷卡/扫码、身份证、人脸',
      merchant_id: demoSpots[0].merchantId,
    },
    {
      id: ids.next('checker_config'),
      checker_id: demoCheckerId,
      name: '语音播报',
      config_type: 2,
      item: 'voiceBroadcast',
      value: 'on',
      remark: '核验结果语音播报',
      merchant_id: demoSpots[0].merchantId,
    },
  );
  for (const spot of spots) {
    addChecker(`${SPOTS[spot.index].name.slice(0, 4)}检票员`, spot.merchantId, spot.shopId, false, [spot]);
    if (spot.index % 4 === 1) {
      const kioskId = addChecker(
        `${SPOTS[spot.index].name.slice(0, 4)}自助核验机`,
        spot.merchantId,
        spot.shopId,
        true,
        [spot],
      );
      configs.push({
        id: ids.next('checker_config'),
        checker_id: kioskId,
        name: '自助核验模式',
        config_type: 3,
        item: 'kioskMode',
        value: 'face,idcard',
        remark: '自助闸机',
        merchant_id: spot.merchantId,
      });
    }
  }

  return {
    spots,
    demoCheckerId,
    checkerMobiles: checkers.map((c) => String(c.mobile)),
    tables: [
      fromObjects('spu', spus),
      fromObjects('sku', skus),
      fromObjects('sku_entrance', entrances),
      fromObjects('tickets_sku', tickets),
      fromObjects('checker', checkers),
      fromObjects('checker_relation', relations),
      fromObjects('checker_config', configs),
    ],
  };
}
