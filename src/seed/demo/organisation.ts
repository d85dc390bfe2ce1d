import { staffName, type IdAllocator } from './ids.js';
import { fromObjects, type TableRows } from './rows.js';

/**
 * Who is on the platform: the platform merchant (which sells the cards), two selling partners (a
 * bank and a labour union), and five scenic-spot operators whose shops are the twenty scenic spots;
 * their departments and staff accounts.
 *
 * merchant_type: 1 platform, 2 scenic-spot operator, 3 sales partner.
 */

export interface SpotDef {
  name: string;
  operator: number;
  /** adult ticket, yuan */
  price: number;
  level: string;
  district: string;
  /** relative share of visits */
  popularity: number;
  entrances: string[];
  /** a second SKU sold for the same resource (night tour, boat, …) */
  extraSku?: string;
}

export const OPERATORS = [
  '青山湖文旅集团有限公司',
  '天目山旅游开发有限公司',
  '富春江文化旅游有限公司',
  '良渚文旅发展有限公司',
  '西溪湖畔景区管理有限公司',
];

export const SPOTS: readonly SpotDef[] = [
  {
    name: '青山湖森林公园',
    operator: 0,
    price: 60,
    level: '4A',
    district: '330112',
    popularity: 2.0,
    entrances: ['东门', '西门'],
    extraSku: '青山湖游船票',
  },
  {
    name: '九溪十八涧',
    operator: 0,
    price: 40,
    level: '4A',
    district: '330106',
    popularity: 2.6,
    entrances: ['九溪口', '龙井口', '游客中心'],
  },
  { name: '云栖竹径', operator: 0, price: 30, level: '3A', district: '330106', popularity: 1.6, entrances: ['主入口'] },
  {
    name: '湘湖旅游度假区',
    operator: 0,
    price: 80,
    level: '5A',
    district: '330109',
    popularity: 2.2,
    entrances: ['北门', '南门'],
  },
  {
    name: '天目大峡谷',
    operator: 1,
    price: 120,
    level: '4A',
    district: '330112',
    popularity: 1.2,
    entrances: ['景区大门'],
    extraSku: '峡谷漂流票',
  },
  {
    name: '白云山风景区',
    operator: 1,
    price: 90,
    level: '4A',
    district: '330127',
    popularity: 1.0,
    entrances: ['山门', '索道下站'],
  },
  {
    name: '千岛湖观光区',
    operator: 1,
    price: 150,
    level: '5A',
    district: '330127',
    popularity: 2.4,
    entrances: ['中心湖区码头', '东南湖区码头'],
    extraSku: '千岛湖游船联票',
  },
  {
    name: '富春江小三峡',
    operator: 1,
    price: 100,
    level: '4A',
    district: '330122',
    popularity: 1.1,
    entrances: ['七里泷码头'],
  },
  {
    name: '清溪古镇',
    operator: 2,
    price: 70,
    level: '4A',
    district: '330111',
    popularity: 2.0,
    entrances: ['东入口', '西入口', '北入口'],
  },
  { name: '桐江书院', operator: 2, price: 25, level: '3A', district: '330122', popularity: 0.7, entrances: ['正门'] },
  {
    name: '新安江森林氧吧',
    operator: 2,
    price: 60,
    level: '4A',
    district: '330182',
    popularity: 1.0,
    entrances: ['游客中心', '南门'],
  },
  {
    name: '大奇山国家森林公园',
    operator: 2,
    price: 50,
    level: '4A',
    district: '330122',
    popularity: 1.1,
    entrances: ['主入口'],
  },
  {
    name: '良渚遗址公园',
    operator: 3,
    price: 60,
    level: '5A',
    district: '330110',
    popularity: 2.4,
    entrances: ['南入口', '西入口'],
  },
  {
    name: '超山梅花景区',
    operator: 3,
    price: 45,
    level: '4A',
    district: '330113',
    popularity: 1.3,
    entrances: ['正门'],
  },
  {
    name: '塘栖古镇',
    operator: 3,
    price: 35,
    level: '4A',
    district: '330113',
    popularity: 1.5,
    entrances: ['水北街口', '广济桥口'],
  },
  {
    name: '钱江观潮城',
    operator: 3,
    price: 50,
    level: '3A',
    district: '330114',
    popularity: 0.9,
    entrances: ['观潮台入口'],
    extraSku: '观潮夜游票',
  },
  {
    name: '西溪湿地探秘',
    operator: 4,
    price: 80,
    level: '5A',
    district: '330106',
    popularity: 2.8,
    entrances: ['周家村入口', '福堤入口', '紫金港入口'],
  },
  {
    name: '飞来峰石刻园',
    operator: 4,
    price: 45,
    level: '5A',
    district: '330106',
    popularity: 3.0,
    entrances: ['东门', '北门'],
  },
  {
    name: '钱塘乐园',
    operator: 4,
    price: 300,
    level: '4A',
    district: '330108',
    popularity: 1.8,
    entrances: ['主题乐园大门'],
    extraSku: '钱塘乐园夜场票',
  },
  { name: '径山禅茶园', operator: 4, price: 40, level: '3A', district: '330110', popularity: 0.8, entrances: ['山门'] },
];

export type RoleCode = 'super_admin' | 'merchant_admin' | 'shop_admin';

export interface StaffSpec {
  username: string;
  nickname: string;
  userType: number;
  merchantId: number | null;
  shopId: number | null;
  deptId: number | null;
  mobile: string;
  role: RoleCode;
}

export interface Seller {
  merchantId: number;
  shopId: number;
}

export interface Organisation {
  platform: Seller & { onlineShopId: number };
  bank: Seller;
  union: Seller;
  operators: Array<{ merchantId: number; name: string }>;
  /** one shop per scenic spot, in SPOTS order */
  spotShops: Array<{ shopId: number; merchantId: number }>;
  staff: StaffSpec[];
  tables: TableRows[];
}

const city = (district: string) => district.slice(0, 4) + '00';
const province = (district: string) => district.slice(0, 2) + '0000';

export function buildOrganisation(ids: IdAllocator): Organisation {
  const merchants: Array<Record<string, string | number | null>> = [];
  const shops: Array<Record<string, string | number | null>> = [];
  const depts: Array<Record<string, string | number | null>> = [];
  const relations: Array<Record<string, string | number | null>> = [];

  const merchant = (name: string, type: number, contact: string, phone: string) => {
    const id = ids.next('merchant');
    merchants.push({ id, name, merchant_type: type, contact_name: contact, contact_phone: phone, status: 1 });
    return id;
  };
  const shop = (merchantId: number, name: string, district: string, extra: Record<string, string | null> = {}) => {
    const id = ids.next('shop');
    shops.push({
      id,
      merchant_id: merchantId,
      name,
      status: 1,
      province_id: province(district),
      city_id: city(district),
      district_id: district,
      address: extra.address ?? null,
      mobile: extra.mobile ?? null,
      linkman: extra.linkman ?? null,
      level: extra.level ?? null,
      business_time: extra.businessTime ?? null,
      introduction: extra.introduction ?? null,
      ticket_info: extra.ticketInfo ?? null,
    });
    return id;
  };
  const dept = (merchantId: number, shopId: number | null, name: string, parentId: number, sort: number) => {
    const id = ids.next('dept');
    depts.push({ id, merchant_id: merchantId, shop_id: shopId, name, parent_id: parentId, sort });
    return id;
  };

  const platformId = merchant('全域旅游年卡平台运营中心', 1, '平台运营', '0571-88880000');
  const serviceShopId = shop(platformId, '旅游年卡服务中心', '330106', {
    address: '杭州市西湖区文三路 100 号',
    mobile: '0571-88880001',
    businessTime: '09:00-17:30',
  });
  const onlineShopId = shop(platformId, '旅游年卡线上商城', '330106', { introduction: '小程序与线上渠道售卡' });
  const platformDept = dept(platformId, null, '平台运营部', 0, 1);
  const bankId = merchant('城市商业银行股份有限公司', 3, '渠道经理', '0571-96500000');
  const bankShopId = shop(bankId, '城市商业银行营业部', '330102', { address: '杭州市上城区解放路 50 号' });
  const unionId = merchant('市总工会职工服务中心', 3, '服务专员', '0571-12351000');
  const unionShopId = shop(unionId, '职工服务中心售卡点', '330105');

  const operators: Organisation['operators'] = [];
  const operatorDepts: number[] = [];
  OPERATORS.forEach((name, i) => {
    const merchantId = merchant(name, 2, `景区负责人${i + 1}`, `0571-8${String(1000001 + i * 1111).slice(1)}`);
    operators.push({ merchantId, name });
    operatorDepts.push(dept(merchantId, null, '运营管理部', 0, 1));
  });

  const spotShops: Organisation['spotShops'] = [];
  const shopDepts: number[] = [];
  SPOTS.forEach((s, i) => {
    const merchantId = operators[s.operator].merchantId;
    const shopId = shop(merchantId, s.name, s.district, {
      address: `${s.name}游客中心`,
      mobile: `0571-6${String(5000000 + i * 37).padStart(7, '0')}`,
      linkman: '票务主管',
      level: s.level,
      businessTime: '07:30-18:00',
      introduction: `${s.name}，国家 ${s.level} 级旅游景区。`,
      ticketInfo: `成人票 ${s.price} 元，旅游年卡持卡人按规则免票入园。`,
    });
    spotShops.push({ shopId, merchantId });
    shopDepts.push(dept(merchantId, shopId, `${s.name}票务组`, operatorDepts[s.operator], i + 1));
    if (i % 2 === 0) {
      relations.push({
        id: ids.next('shop_relation'),
        shop_id: shopId,
        third_name: '数字文旅平台',
        third_id: `DT${String(100200 + i)}`,
        channel_type: 3,
        remark: '景区数字化平台编号',
      });
    }
  });

  const staff: StaffSpec[] = [
    {
      username: 'platform01',
      nickname: '平台运营演示',
      userType: 1,
      merchantId: null,
      shopId: null,
      deptId: platformDept,
      mobile: '13900000001',
      role: 'super_admin',
    },
  ];
  operators.forEach((o, i) =>
    staff.push({
      username: staffName('merchant', i + 1),
      nickname: `${o.name.slice(0, 4)}管理员`,
      userType: 2,
      merchantId: o.merchantId,
      shopId: null,
      deptId: operatorDepts[i],
      mobile: `139000001${String(i + 1).padStart(2, '0')}`,
      role: 'merchant_admin',
    }),
  );
  spotShops.forEach((s, i) =>
    staff.push({
      username: staffName('shop', i + 1),
      nickname: `${SPOTS[i].name}票务`,
      userType: 3,
      merchantId: s.merchantId,
      shopId: s.shopId,
      deptId: shopDepts[i],
      mobile: `139000002${String(i + 1).padStart(2, '0')}`,
      role: 'shop_admin',
    }),
  );

  return {
    platform: { merchantId: platformId, shopId: serviceShopId, onlineShopId },
    bank: { merchantId: bankId, shopId: bankShopId },
    union: { merchantId: unionId, shopId: unionShopId },
    operators,
    spotShops,
    staff,
    tables: [
      fromObjects('merchant', merchants),
      fromObjects('shop', shops),
      fromObjects('shop_relation', relations),
      fromObjects('dept', depts),
    ],
  };
}

/** Permissions of the demo roles (module wildcards; `super_admin` already holds `*`). */
export const DEMO_ROLES: Record<Exclude<RoleCode, 'super_admin'>, { name: string; permissions: string[] }> = {
  merchant_admin: {
    name: '商户管理员',
    permissions: [
      'region:read',
      'area:read',
      'allocation:*',
      'estimation:*',
      'settlement:*',
      'statistics:*',
      'checker:*',
      'member:read',
      'catalog:*',
      'shop:*',
      'dept:*',
      'contract:read',
      'merchant:read',
      'merchantFinance:*',
      'staff:*',
      'role:*',
      'cardModel:read',
      'card:read',
      // what a new shop's default user gets (addShop grants it on the merchant's behalf)
      'sales:*',
      'custom:*',
      'hotel:read',
      'coupon:read',
    ],
  },
  shop_admin: {
    name: '门店管理员',
    permissions: [
      'region:read',
      'area:read',
      'settlement:read',
      'statistics:*',
      'checker:*',
      'member:read',
      'catalog:*',
      'staff:read',
      'card:read',
    ],
  },
};
