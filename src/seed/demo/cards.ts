import { addMonths, salesFactor, type Day } from './calendar.js';
import { MODEL_SHARES, VALIDITY_MONTHS } from './card-models.js';
import type { Organisation } from './organisation.js';
import { personFlags } from './people.js';
import { apportion, cumulate, Rng } from './prng.js';

/**
 * The card plan: every card of the data set as columns of typed arrays (a few dozen bytes a card,
 * so ten million check-ins' worth of cards fits easily), ordered by activation time. Rows are written
 * from it in batches, and the check-in stream samples holders from it.
 *
 * Cards are sold every day of the span in proportion to the sales season. A card is bound to a
 * holder (person) shortly after activation, unless it is one of the few never bound or bound only
 * after the reference date; a few bound cards were disabled since (lost or reported). Most holders
 * are new; about one card in eight goes to an earlier holder (a renewal or a second card).
 */

export const CardStatus = { UNBOUND: 1, BOUND: 2, DISABLED: 3, EXPIRED: 4 } as const;

const STREAM_SALES = 10;
const STREAM_CARD = 11;
const DAY_MS = 86_400_000;
/** ChannelType 1–8: card system, multi-province, digital platform, benefit app, payment, bank, union, appointment code */
const CHANNEL_CUMULATIVE = cumulate([25, 5, 20, 15, 10, 12, 8, 5]);
const MODEL_CUMULATIVE = cumulate(MODEL_SHARES);

export interface CardPlan {
  count: number;
  firstId: number;
  model: Uint8Array;
  channel: Uint8Array;
  /** 1 chip, 2 electronic */
  medium: Uint8Array;
  donation: Uint8Array;
  status: Uint8Array;
  activeMs: Float64Array;
  expireMs: Float64Array;
  /** NaN when the card is not bound */
  boundMs: Float64Array;
  /** holder's person index, -1 when not bound */
  person: Int32Array;
  /** 1 when the holder enrolled a face (face check-ins possible) */
  face: Uint8Array;
  /** prefix sums of how often each card is used (0 for cards that cannot be checked); length count + 1 */
  weightCumulative: Float64Array;
  personCount: number;
  /** per person: member id, or 0 when the person has no member account */
  memberIdOf: Float64Array;
  /** per person: bound time and channel of the first card */
  personSince: Float64Array;
  personChannel: Uint8Array;
  /** the demo member's cards (indexes) */
  demoCards: number[];
  boundCount: number;
  /** members to insert (the demo member is not among them when it already existed) */
  newMembers: number;
  /** the demo member's record existed before (its row is not written again) */
  demoMemberExists: boolean;
}

export interface CardPlanInput {
  seed: number;
  days: Day[];
  now: Date;
  count: number;
  firstCardId: number;
  firstMemberId: number;
  /** the demo member when its record already exists (it logged in before the data set was made) */
  existingDemoMemberId: number | null;
}

export function planCards(input: CardPlanInput): CardPlan {
  const { seed, days, count } = input;
  const nowMs = input.now.getTime();
  const plan: CardPlan = {
    count,
    firstId: input.firstCardId,
    model: new Uint8Array(count),
    channel: new Uint8Array(count),
    medium: new Uint8Array(count),
    donation: new Uint8Array(count),
    status: new Uint8Array(count),
    activeMs: new Float64Array(count),
    expireMs: new Float64Array(count),
    boundMs: new Float64Array(count),
    person: new Int32Array(count),
    face: new Uint8Array(count),
    weightCumulative: new Float64Array(count + 1),
    personCount: 0,
    memberIdOf: new Float64Array(0),
    personSince: new Float64Array(0),
    personChannel: new Uint8Array(0),
    demoCards: [],
    boundCount: 0,
    newMembers: 0,
    demoMemberExists: input.existingDemoMemberId !== null,
  };
  const since: number[] = [Number.NaN];
  const firstChannel: number[] = [0];
  let persons = 1; // person 0 is the demo member
  const demoFrom = nowMs - 240 * DAY_MS;
  const demoTo = nowMs - 30 * DAY_MS;

  const perDay = apportion(count, days.map(salesFactor));
  let i = 0;
  for (const day of days) {
    const n = perDay[day.index];
    if (n === 0) continue;
    const dayRng = new Rng(seed, STREAM_SALES, day.index);
    const seconds = Array.from({ length: n }, () => 8 * 3600 + dayRng.int(14 * 3600)).sort((a, b) => a - b);
    for (const second of seconds) {
      const rng = new Rng(seed, STREAM_CARD, i);
      const active = new Date(day.start + second * 1000);
      plan.activeMs[i] = active.getTime();
      plan.expireMs[i] = addMonths(active, VALIDITY_MONTHS).getTime();
      const model = rng.pickCumulative(MODEL_CUMULATIVE);
      const channel = rng.pickCumulative(CHANNEL_CUMULATIVE) + 1;
      plan.channel[i] = channel;
      plan.medium[i] = rng.chance(channel === 1 || channel === 6 || channel === 7 ? 0.6 : 0.1) ? 1 : 2;
      plan.donation[i] = rng.chance(0.03) ? 1 : 0;
      const r = rng.next();
      let state: number = r < 0.06 ? CardStatus.UNBOUND : r < 0.085 ? CardStatus.DISABLED : CardStatus.BOUND;
      let bound = plan.activeMs[i] + (rng.chance(0.6) ? rng.int(1800) : rng.int(5 * 86400)) * 1000;
      const reuse = rng.chance(0.12) && persons > 1;
      const reused = 1 + rng.int(Math.max(1, persons - 1));
      let weight = Math.min(6, Math.max(0.15, Math.exp(0.8 * rng.normal())));

      // The demo member gets two cards bought 1–8 months ago: one of the first kind, one of another.
      const inDemoWindow = plan.activeMs[i] >= demoFrom && plan.activeMs[i] <= demoTo && plan.demoCards.length < 2;
      const demoSlot =
        inDemoWindow && (plan.demoCards.length === 0 ? model === 0 : model !== plan.model[plan.demoCards[0]]);
      let holder: number;
      if (demoSlot) {
        state = CardStatus.BOUND;
        bound = plan.activeMs[i] + 600_000;
        holder = 0;
        weight *= 3;
        plan.demoCards.push(i);
      } else if (state === CardStatus.UNBOUND || bound >= nowMs) {
        state = CardStatus.UNBOUND;
        holder = -1;
      } else {
        holder = reuse ? reused : persons++;
      }
      if (holder > 0 && holder >= since.length) {
        since.push(bound);
        firstChannel.push(channel);
      } else if (holder === 0 && Number.isNaN(since[0])) {
        since[0] = bound;
        firstChannel[0] = channel;
      }
      plan.model[i] = model;
      plan.person[i] = holder;
      plan.face[i] = holder >= 0 && personFlags(seed, holder).hasFace ? 1 : 0;
      plan.boundMs[i] = holder >= 0 ? bound : Number.NaN;
      if (holder >= 0) plan.boundCount++;
      plan.status[i] = state === CardStatus.DISABLED ? state : plan.expireMs[i] < nowMs ? CardStatus.EXPIRED : state;
      const checkable = holder >= 0 && state !== CardStatus.DISABLED;
      plan.weightCumulative[i + 1] = plan.weightCumulative[i] + (checkable ? weight : 0);
      i++;
    }
  }

  plan.personCount = persons;
  plan.personSince = Float64Array.from(since, (v) => (Number.isNaN(v) ? nowMs - 200 * DAY_MS : v));
  plan.personChannel = Uint8Array.from(firstChannel, (c) => c || 3);
  plan.memberIdOf = new Float64Array(persons);
  let nextMember = input.firstMemberId;
  for (let p = 0; p < persons; p++) {
    if (p === 0 && input.existingDemoMemberId !== null) plan.memberIdOf[0] = input.existingDemoMemberId;
    else if (personFlags(seed, p).hasMember) {
      plan.memberIdOf[p] = nextMember++;
      plan.newMembers++;
    }
  }
  return plan;
}

/** Which merchant and shop sold a card of the channel. */
export function sellerOf(org: Organisation, channel: number): { merchantId: number; shopId: number } {
  if (channel === 1) return { merchantId: org.platform.merchantId, shopId: org.platform.shopId };
  if (channel === 6) return org.bank;
  if (channel === 7) return org.union;
  return { merchantId: org.platform.merchantId, shopId: org.platform.onlineShopId };
}
