import { formatDay } from './calendar.js';
import { sellerOf, type CardPlan } from './cards.js';
import type { ModelPlan } from './card-models.js';
import { cardNumber, orderNumber } from './ids.js';
import type { Organisation } from './organisation.js';
import { facePhotoUrl, person } from './people.js';
import { hashKey } from './prng.js';
import { encodeRows, isoTime, type Cell, type TableRows } from './rows.js';

/** Member, card and binding rows of a card plan, produced in batches. */

const STREAM_OPEN_ID = 5;

export interface HolderContext {
  seed: number;
  plan: CardPlan;
  models: ModelPlan[];
  org: Organisation;
  /** the open id of the demo member (the local mini-program provider's id for code demo-member-1) */
  demoOpenId: string;
  /** the platform demo user: the sales account of cards sold at the service centre */
  activeBy: number | null;
  referenceYear: number;
  firstBindingId: number;
}

export function memberRows(ctx: HolderContext): TableRows {
  const { plan, seed } = ctx;
  function* rows(): Generator<Cell[]> {
    for (let p = 0; p < plan.personCount; p++) {
      const id = plan.memberIdOf[p];
      if (id === 0 || (p === 0 && plan.demoMemberExists)) continue;
      const h = person(seed, p, ctx.referenceYear);
      const openId =
        p === 0 ? ctx.demoOpenId : `wx_demo_${hashKey(seed, STREAM_OPEN_ID, p).toString(16).padStart(8, '0')}_${p}`;
      yield [
        id,
        openId,
        h.mobile,
        1,
        1,
        p === 0 ? '演示会员' : h.name.slice(0, 1) + '游客',
        h.name,
        h.sex,
        Number(h.districtCode),
        h.birthday,
        plan.personChannel[p],
        isoTime(plan.personSince[p]),
      ];
    }
  }
  return {
    table: 'member',
    columns: [
      'id',
      'open_id',
      'mobile',
      'status',
      'register_terminal',
      'nickname',
      'name',
      'sex',
      'area_id',
      'birthday',
      'channel',
      'created_at',
    ],
    chunks: (enc, maxRows) => encodeRows(rows(), enc, maxRows),
    cells: rows,
    total: plan.newMembers,
  };
}

export function cardRows(ctx: HolderContext): TableRows {
  const { plan, models, org } = ctx;
  function* rows(): Generator<Cell[]> {
    for (let i = 0; i < plan.count; i++) {
      const seller = sellerOf(org, plan.channel[i]);
      const active = plan.activeMs[i];
      yield [
        plan.firstId + i,
        cardNumber(plan.model[i], i + 1),
        models[plan.model[i]].id,
        plan.status[i],
        plan.medium[i],
        plan.channel[i],
        seller.merchantId,
        seller.shopId,
        plan.channel[i] === 1 ? ctx.activeBy : null,
        plan.donation[i] === 1,
        isoTime(active),
        isoTime(plan.expireMs[i]),
        orderNumber(formatDay(new Date(active)), i + 1),
        isoTime(active),
      ];
    }
  }
  return {
    table: 'card',
    columns: [
      'id',
      'card_number',
      'card_model_id',
      'status',
      'medium',
      'channel',
      'merchant_id',
      'shop_id',
      'active_by',
      'is_donation',
      'active_time',
      'expire_time',
      'order_no',
      'created_at',
    ],
    chunks: (enc, maxRows) => encodeRows(rows(), enc, maxRows),
    cells: rows,
    total: plan.count,
  };
}

export function bindingRows(ctx: HolderContext): TableRows {
  const { plan, seed } = ctx;
  function* rows(): Generator<Cell[]> {
    let id = ctx.firstBindingId;
    for (let i = 0; i < plan.count; i++) {
      const p = plan.person[i];
      if (p < 0) continue;
      const h = person(seed, p, ctx.referenceYear);
      const bound = isoTime(plan.boundMs[i]);
      const memberId = plan.memberIdOf[p];
      yield [
        id++,
        plan.firstId + i,
        memberId === 0 ? null : memberId,
        h.name,
        h.mobile,
        1,
        h.idNo,
        plan.face[i] === 1 ? facePhotoUrl(p) : null,
        bound,
        bound,
      ];
    }
  }
  return {
    table: 'card_binding',
    columns: [
      'id',
      'card_id',
      'member_id',
      'name',
      'phone',
      'id_type',
      'id_no',
      'face_photo',
      'bound_at',
      'created_at',
    ],
    chunks: (enc, maxRows) => encodeRows(rows(), enc, maxRows),
    cells: rows,
    total: plan.boundCount,
  };
}
