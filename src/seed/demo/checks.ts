import { addMonths, CLOSING_S, OPENING_S, pickSecondOfDay, visitFactor, type Day } from './calendar.js';
import { VALIDITY_MONTHS, type ModelPlan } from './card-models.js';
import type { CardPlan } from './cards.js';
import { facePhotoUrl, PersonCache } from './people.js';
import { apportion, Rng, searchCumulative } from './prng.js';
import type { CheckRollup } from './rollup.js';
import { isoTime, type BinaryChunk, type Chunk, type Encoder, type TableRows } from './rows.js';
import { BinaryRows, encodeFields, pgDays } from './binary-copy.js';

/**
 * The check-in stream, generated one day at a time (never more than a day's checks in memory).
 *
 * Day d gets a share of the N checks proportional to its traffic (calendar.visitFactor: season,
 * weekday or holiday, weather) times the usage weight of the cards valid that day (so the first
 * months, when few cards are out, are quiet). Each check draws a holder by usage weight among the
 * cards valid that day, a park among the card kind's rules by popularity, a SKU of that park, a gate
 * and a verifier posted at that SKU and gate, and a time in opening hours inside the card's
 * bound-to-expiry window. A draw that would exceed the rule's daily_check_limit for the card, park
 * and day is dropped; at parks that allow two entries a day, some holders come back later.
 * The day's checks are numbered in time order.
 */

const STREAM_WEATHER = 20;
const STREAM_CHECKS = 21;
const DAY_MS = 86_400_000;
const MAX_RULES = 32;

export const CHECK_COLUMNS = [
  'id',
  'card_id',
  'card_model_id',
  'sku_id',
  'resource_id',
  'entrance_id',
  'checker_id',
  'tourist_name',
  'tourist_mobile',
  'tourist_card_no',
  'tourist_face_photo',
  'consume_num',
  'check_type',
  'status',
  'check_time',
  'check_date',
  'created_at',
] as const;

/** The columns' types, for COPY's binary format (a table with other types is loaded as text). */
const CHECK_COLUMN_TYPES = [
  ...Array<string>(7).fill('bigint'),
  ...Array<string>(4).fill('character varying'),
  'integer',
  'smallint',
  'smallint',
  'timestamp with time zone',
  'date',
  'timestamp with time zone',
];
const ROUTE_KINDS = ['int8', 'int8', 'int8', 'int8', 'int8'] as const;
const HOLDER_KINDS = ['text', 'text', 'text'] as const;
const FACE_KINDS = ['text'] as const;
/** A row's bytes besides its holder's fields: field count, 7 bigints, a face URL, 3 small ints, 3 dates. */
const MAX_BINARY_ROW = 2 + 7 * 12 + 4 + 1024 * 4 + 8 + 6 + 6 + 12 + 8 + 12;

export interface CheckStreamInput {
  seed: number;
  days: Day[];
  now: Date;
  /** about how many checks to make */
  target: number;
  plan: CardPlan;
  models: ModelPlan[];
  firstCheckId: number;
  referenceYear: number;
  /** counts each check written into the statistics' roll-up (the fast load) */
  rollup?: CheckRollup;
}

export interface CheckTally {
  rows: number;
  lastId: number;
}

/** First index whose value is ≥ x in an ascending array. */
function lowerBound(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The cards that may be valid during a day: a contiguous range, since cards are ordered by activation. */
function validRange(plan: CardPlan, day: Day): [number, number] {
  const earliest = addMonths(new Date(day.start), -VALIDITY_MONTHS).getTime() - DAY_MS;
  return [lowerBound(plan.activeMs, earliest), lowerBound(plan.activeMs, day.end)];
}

/** How many checks each day gets. */
export function dailyTargets(input: CheckStreamInput): number[] {
  const w = input.plan.weightCumulative;
  const shares = input.days.map((day) => {
    const [lo, hi] = validRange(input.plan, day);
    return visitFactor(day, new Rng(input.seed, STREAM_WEATHER, day.index)) * (w[hi] - w[lo]);
  });
  return apportion(input.target, shares);
}

class DayBuffer {
  card = new Int32Array(0);
  rule = new Int32Array(0);
  route = new Int32Array(0);
  type = new Uint8Array(0);
  time = new Float64Array(0);
  length = 0;

  reset(capacity: number): void {
    if (this.card.length < capacity) {
      const n = Math.max(capacity, this.card.length * 2, 1024);
      this.card = new Int32Array(n);
      this.rule = new Int32Array(n);
      this.route = new Int32Array(n);
      this.type = new Uint8Array(n);
      this.time = new Float64Array(n);
    }
    this.length = 0;
  }

  push(card: number, rule: number, route: number, type: number, time: number): void {
    const k = this.length++;
    this.card[k] = card;
    this.rule[k] = rule;
    this.route[k] = route;
    this.type[k] = type;
    this.time[k] = time;
  }
}

/**
 * Every way into a park: (card kind, rule, SKU, gate, verifier), numbered, so a check stores one
 * number and its text is encoded once per run rather than once per row.
 */
interface Route {
  modelId: number;
  skuId: number;
  resourceId: number;
  entranceId: number;
  checkerId: number;
}

interface Routes {
  list: Route[];
  /** [model][rule][sku][gate][verifier] → route number */
  index: number[][][][][];
}

function buildRoutes(models: ModelPlan[]): Routes {
  const list: Route[] = [];
  const index = models.map((m) =>
    m.rules.map((r) =>
      r.spot.skus.map((sku) =>
        sku.gates.map((gate) =>
          gate.checkers.map((checkerId) => {
            list.push({
              modelId: m.id,
              skuId: sku.skuId,
              resourceId: r.spot.spuId,
              entranceId: gate.entranceId,
              checkerId,
            });
            return list.length - 1;
          }),
        ),
      ),
    ),
  );
  return { list, index };
}

function generateDay(input: CheckStreamInput, routes: Routes, day: Day, target: number, buf: DayBuffer): void {
  const { plan, models, seed } = input;
  const w = plan.weightCumulative;
  const [lo, hi] = validRange(plan, day);
  buf.reset(target);
  if (target === 0 || w[hi] <= w[lo]) return;
  const rng = new Rng(seed, STREAM_CHECKS, day.index);
  const usage = new Map<number, number>();
  const open = day.start + OPENING_S * 1000;
  const close = Math.min(day.start + CLOSING_S * 1000, input.now.getTime());
  const span = w[hi] - w[lo];
  const maxAttempts = target * 8 + 50;
  for (let attempt = 0; buf.length < target && attempt < maxAttempts; attempt++) {
    const i = searchCumulative(w, w[lo] + rng.next() * span) - 1;
    const from = Math.max(open, plan.boundMs[i]);
    const to = Math.min(close, plan.expireMs[i]);
    if (!(to - from >= 60_000)) continue;
    const model = models[plan.model[i]];
    const r = rng.pickCumulative(model.ruleCumulative);
    const rule = model.rules[r];
    const key = i * MAX_RULES + r;
    const used = usage.get(key) ?? 0;
    if (used >= rule.limit) continue;
    let t = day.start + pickSecondOfDay(rng) * 1000;
    if (t < from || t >= to) t = from + Math.floor((rng.next() * (to - from)) / 1000) * 1000;
    const s = rule.spot.skus.length > 1 && rng.chance(0.2) ? 1 : 0;
    const g = rng.int(rule.spot.skus[s].gates.length);
    const gate = rule.spot.skus[s].gates[g];
    const k = rng.int(gate.checkers.length);
    const route = routes.index[plan.model[i]][r][s][g][k];
    const hasFace = plan.face[i] === 1;
    const type = gate.kiosk[k]
      ? hasFace && rng.chance(0.7)
        ? 3
        : 2
      : hasFace && rng.chance(0.2)
        ? 3
        : rng.chance(0.25)
          ? 2
          : 1;
    buf.push(i, r, route, type, t);
    usage.set(key, used + 1);
    // Re-entry where the park allows a second entry the same day.
    if (used + 1 < rule.limit && buf.length < target && rng.chance(0.3)) {
      const again = t + (30 + rng.int(150)) * 60_000;
      if (again < to) {
        buf.push(i, r, route, type, again);
        usage.set(key, used + 2);
      }
    }
  }
}

/** The check rows, day by day, in chunks; `tally` counts what was produced. */
export function checkRows(input: CheckStreamInput, tally: CheckTally): TableRows {
  const { plan, seed } = input;
  const targets = dailyTargets(input);
  const routes = buildRoutes(input.models);
  const buf = new DayBuffer();
  const persons = new PersonCache(seed, input.referenceYear);
  function* chunks(enc: Encoder, maxRows: number): Generator<Chunk> {
    tally.rows = 0;
    tally.lastId = input.firstCheckId - 1;
    input.rollup?.reset();
    const { sep, close, between } = enc;
    // Text that repeats: the route columns, consume_num/check_type/status, a holder's tourist columns.
    const routeText = routes.list.map(
      (r) => sep + r.modelId + sep + r.skuId + sep + r.resourceId + sep + r.entranceId + sep + r.checkerId + sep,
    );
    const typeText = [0, 1, 2, 3].map((type) => `${sep}1${sep}${type}${sep}1${sep}`);
    const holderText = new Map<number, string>();
    for (const day of input.days) {
      generateDay(input, routes, day, targets[day.index], buf);
      if (buf.length === 0) continue;
      const order = Array.from({ length: buf.length }, (_, k) => k).sort((a, b) => buf.time[a] - buf.time[b] || a - b);
      const date = sep + enc.plain(day.date) + sep;
      holderText.clear();
      let text = '';
      let n = 0;
      for (const k of order) {
        const i = buf.card[k];
        input.rollup?.add(i, buf.rule[k]);
        const p = plan.person[i];
        let holder = holderText.get(p);
        if (holder === undefined) {
          const h = persons.get(p);
          holder = enc.text(h.name) + sep + enc.plain(h.mobile) + sep + enc.plain(h.idNo) + sep;
          holderText.set(p, holder);
        }
        const type = buf.type[k];
        const time = enc.plain(isoTime(buf.time[k]));
        // id, card | kind, sku, resource, gate, verifier | tourist name, mobile, id no | face | 1, type, 1 | time, date, created_at
        text +=
          (n === 0 ? enc.open : between + enc.open) +
          ++tally.lastId +
          sep +
          (plan.firstId + i) +
          routeText[buf.route[k]] +
          holder +
          (type === 3 ? enc.plain(facePhotoUrl(p)) : enc.nul) +
          typeText[type] +
          time +
          date +
          time +
          close;
        if (++n >= maxRows) {
          yield { rows: n, text };
          text = '';
          n = 0;
        }
      }
      tally.rows += order.length;
      if (n) yield { rows: n, text };
    }
  }
  /** The same rows in COPY's binary format, each chunk within one UTC month (a partition of card_check). */
  function* binaryChunks(maxRows: number): Generator<BinaryChunk> {
    tally.rows = 0;
    tally.lastId = input.firstCheckId - 1;
    input.rollup?.reset();
    const out = new BinaryRows();
    const routeFields = routes.list.map((r) =>
      encodeFields([r.modelId, r.skuId, r.resourceId, r.entranceId, r.checkerId], ROUTE_KINDS),
    );
    const holderFields = new Map<number, Buffer>();
    const faceFields = new Map<number, Buffer>();
    let month = '';
    let monthEnd = -Infinity;
    let n = 0;
    for (const day of input.days) {
      generateDay(input, routes, day, targets[day.index], buf);
      if (buf.length === 0) continue;
      const order = Array.from({ length: buf.length }, (_, k) => k).sort((a, b) => buf.time[a] - buf.time[b] || a - b);
      const date = pgDays(day.date);
      holderFields.clear();
      faceFields.clear();
      for (const k of order) {
        const t = buf.time[k];
        // Rows come in time order: a new UTC month starts a new chunk (and so a new partition's COPY).
        if (t >= monthEnd) {
          if (n) yield { rows: n, bytes: out.take(), month };
          n = 0;
          const d = new Date(t);
          month = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
          monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
        }
        const i = buf.card[k];
        input.rollup?.add(i, buf.rule[k]);
        const p = plan.person[i];
        let holder = holderFields.get(p);
        if (holder === undefined) {
          const h = persons.get(p);
          holder = encodeFields([h.name, h.mobile, h.idNo], HOLDER_KINDS);
          holderFields.set(p, holder);
        }
        const type = buf.type[k];
        out.reserve(MAX_BINARY_ROW + holder.length);
        out.row(CHECK_COLUMNS.length);
        out.int8(++tally.lastId);
        out.int8(plan.firstId + i);
        out.fields(routeFields[buf.route[k]]);
        out.fields(holder);
        if (type === 3) {
          let face = faceFields.get(p);
          if (face === undefined) {
            face = encodeFields([facePhotoUrl(p)], FACE_KINDS);
            faceFields.set(p, face);
          }
          out.fields(face);
        } else out.nul();
        out.int4(1);
        out.int2(type);
        out.int2(1);
        out.timestamp(t);
        out.date(date);
        out.timestamp(t);
        if (++n >= maxRows) {
          yield { rows: n, bytes: out.take(), month };
          n = 0;
        }
      }
      tally.rows += order.length;
      if (n) yield { rows: n, bytes: out.take(), month };
      n = 0;
    }
  }
  return {
    table: 'card_check',
    columns: CHECK_COLUMNS,
    chunks,
    total: input.target,
    binary: { types: CHECK_COLUMN_TYPES, chunks: binaryChunks },
  };
}
