import { cumulate, type Rng } from './prng.js';

/**
 * Days, months and seasons in the service time zone. Every date here is built with Date's local
 * constructors and getters, which follow process.env.TZ (the service zone, Asia/Shanghai by default):
 * a check's check_date is the local date of its check_time, as the check-in service records it.
 */

export interface Day {
  /** 0 = the first day of the generated span */
  index: number;
  /** local midnight and the next local midnight, epoch ms */
  start: number;
  end: number;
  /** 'YYYY-MM-DD' */
  date: string;
  year: number;
  /** 1–12 */
  month: number;
  dayOfMonth: number;
  /** 0 Sunday … 6 Saturday */
  dow: number;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function formatDay(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** 'YYYY-MM-DD' → local midnight of that day; null when it is not a real date. */
export function parseDay(text: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return formatDay(d) === text.trim() ? d : null;
}

/** Local midnight of the day `d` falls on. */
export function startOfLocalDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

/** d + n calendar months, the day clamped to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(d: Date, months: number): Date {
  const target = new Date(
    d.getFullYear(),
    d.getMonth() + months,
    1,
    d.getHours(),
    d.getMinutes(),
    d.getSeconds(),
    d.getMilliseconds(),
  );
  const lastDay = new Date(target.getFullYear(), target.getMonth() + 1, 0).getDate();
  target.setDate(Math.min(d.getDate(), lastDay));
  return target;
}

/** The days from `from` (a local midnight) up to, not including, `to`. */
export function daysBetween(from: Date, to: Date): Day[] {
  const days: Day[] = [];
  for (let i = 0; ; i++) {
    const start = new Date(from.getFullYear(), from.getMonth(), from.getDate() + i);
    if (start.getTime() >= to.getTime()) break;
    const end = new Date(from.getFullYear(), from.getMonth(), from.getDate() + i + 1);
    days.push({
      index: i,
      start: start.getTime(),
      end: end.getTime(),
      date: formatDay(start),
      year: start.getFullYear(),
      month: start.getMonth() + 1,
      dayOfMonth: start.getDate(),
      dow: start.getDay(),
    });
  }
  return days;
}

// ---- Seasonality ---------------------------------------------------------------------------------

/** Lunar New Year's Day (Spring Festival), by Gregorian year. */
const SPRING_FESTIVAL: Record<number, string> = {
  2015: '02-19',
  2016: '02-08',
  2017: '01-28',
  2018: '02-16',
  2019: '02-05',
  2020: '01-25',
  2021: '02-12',
  2022: '02-01',
  2023: '01-22',
  2024: '02-10',
  2025: '01-29',
  2026: '02-17',
  2027: '02-06',
  2028: '01-26',
  2029: '02-13',
  2030: '02-03',
  2031: '01-23',
  2032: '02-11',
  2033: '01-31',
  2034: '02-19',
  2035: '02-08',
  2036: '01-28',
  2037: '02-15',
  2038: '02-04',
  2039: '01-24',
  2040: '02-12',
};
/** Dragon Boat and Mid-Autumn festivals (lunar dates) of the years we know; elsewhere they are skipped. */
const LUNAR_SHORT_HOLIDAYS = new Set([
  '2023-06-22',
  '2023-09-29',
  '2024-06-10',
  '2024-09-17',
  '2025-05-31',
  '2025-10-06',
  '2026-06-19',
  '2026-09-25',
  '2027-06-09',
  '2027-09-15',
  '2028-05-28',
  '2028-10-03',
]);

// Scenic spots around a Chinese city: a quiet winter, a busy spring, the summer holidays, golden autumn.
const VISIT_MONTH = [0.55, 0.65, 0.95, 1.2, 1.2, 1.0, 1.25, 1.3, 1.0, 1.2, 0.85, 0.55];
const VISIT_DOW = [1.75, 0.8, 0.8, 0.85, 0.9, 1.1, 2.0];
// Card sales: New-Year and Spring-Festival gifts, summer holidays, a dip in autumn.
const SALES_MONTH = [1.6, 1.2, 0.9, 1.0, 1.1, 0.9, 1.2, 1.1, 0.8, 1.0, 0.8, 1.5];
const SALES_DOW = [1.3, 0.9, 0.9, 0.9, 0.95, 1.05, 1.35];

const DAY_MS = 86_400_000;

/** Days from Spring Festival of the day's year (negative before it); null when the year is unknown. */
function springFestivalOffset(day: Day): number | null {
  const md = SPRING_FESTIVAL[day.year];
  if (!md) return null;
  const [m, d] = md.split('-').map(Number);
  const festival = new Date(day.year, m - 1, d).getTime();
  return Math.round((day.start - festival) / DAY_MS);
}

/** The public-holiday multiplier of a day, replacing the weekday one; null on an ordinary day. */
function holidayFactor(day: Day): number | null {
  const { month: m, dayOfMonth: d } = day;
  if (m === 10 && d <= 7) return d <= 3 ? 3.6 : 2.8; // National Day Golden Week
  if (m === 5 && d <= 5) return d <= 3 ? 2.8 : 2.2; // Labour Day
  if (m === 4 && d >= 4 && d <= 6) return 1.9; // Qingming
  if (m === 1 && d === 1) return 1.6; // New Year's Day
  const sf = springFestivalOffset(day);
  if (sf !== null) {
    if (sf === -1) return 0.5; // New Year's Eve: families at home
    if (sf >= 0 && sf <= 6) return sf <= 3 ? 2.4 : 1.9;
    if (sf === 14) return 1.8; // Lantern Festival
  }
  const prev = formatDay(new Date(day.start - DAY_MS / 2));
  const next = formatDay(new Date(day.end + DAY_MS / 2));
  if (LUNAR_SHORT_HOLIDAYS.has(day.date) || LUNAR_SHORT_HOLIDAYS.has(prev) || LUNAR_SHORT_HOLIDAYS.has(next))
    return 1.8;
  return null;
}

/**
 * Relative visitor traffic of a day: month × (weekday or holiday) × weather. The weather draw comes
 * from the day's own stream: mostly ±12 %, and a rainy day (likelier in the June plum-rain season)
 * halves the crowd.
 */
export function visitFactor(day: Day, rng: Rng): number {
  const base = VISIT_MONTH[day.month - 1] * (holidayFactor(day) ?? VISIT_DOW[day.dow]);
  const rainy = rng.chance(day.month === 6 ? 0.3 : 0.1);
  return base * Math.exp(0.12 * rng.normal()) * (rainy ? 0.5 : 1);
}

/** Relative card sales of a day; Spring Festival week and "Double 11" are promotions. */
export function salesFactor(day: Day): number {
  let f = SALES_MONTH[day.month - 1] * SALES_DOW[day.dow];
  const sf = springFestivalOffset(day);
  if (sf !== null && sf >= -10 && sf <= -2) f *= 2;
  if (day.month === 11 && day.dayOfMonth === 11) f *= 3;
  if (day.month === 12 && day.dayOfMonth >= 24) f *= 1.5;
  return f;
}

// ---- Time of day -----------------------------------------------------------------------------------

const SLOT_S = 600;
const FIRST_SLOT_S = 7 * 3600 + 1800; // gates open at 07:30
// Relative arrivals per 10 minutes, 07:30–18:00: a morning rush, a lunch dip, a smaller afternoon wave.
const SLOT_WEIGHTS = (() => {
  const w: number[] = [];
  for (let s = FIRST_SLOT_S; s < 18 * 3600; s += SLOT_S) {
    const h = s / 3600;
    const morning = Math.exp(-((h - 10) ** 2) / 2.2);
    const afternoon = 0.55 * Math.exp(-((h - 14.5) ** 2) / 2.5);
    w.push(0.05 + morning + afternoon);
  }
  return w;
})();
const SLOT_CUMULATIVE = cumulate(SLOT_WEIGHTS);

export const OPENING_S = FIRST_SLOT_S;
export const CLOSING_S = FIRST_SLOT_S + SLOT_WEIGHTS.length * SLOT_S;

/** A second of the day at which a visitor passes the gate. */
export function pickSecondOfDay(rng: Rng): number {
  return FIRST_SLOT_S + rng.pickCumulative(SLOT_CUMULATIVE) * SLOT_S + rng.int(SLOT_S);
}
