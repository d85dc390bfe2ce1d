import { sql, type Expression, type SqlBool } from 'kysely';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { cardVisible } from './statistics-scope.js';

/**
 * statCardArea (the member portrait): the holders of the scope's bound cards (one per living binding:
 * a person holding two cards counts twice, as the portrait weighs holders by the cards they hold), by
 * gender, age band and city. Each attribute comes from the member record when the holder has one that
 * says it, else from the binding's 18-digit resident ID number (GB 11643: digits 1–6 the district,
 * 7–14 the birth date, 17 odd for men); the district becomes a city through the region dictionary.
 * One statement: the bindings are grouped in parallel by (sex, age band, district), a few hundred
 * groups, and only those groups meet the region dictionary.
 */

export interface PortraitCounts {
  gender: Map<number, number>;
  /** band index 0–5 (<18, 18–30, 31–40, 41–50, 51–60, >60); -1 unknown */
  age: Map<number, number>;
  /** city region id (0 unknown) → holders, and the city's name */
  city: Array<{ cityId: number; name: string | null; count: number }>;
}


/** The first real date whose YYYYMMDD is at least `ymd` (a day past the month's end is the next month's first). */
function firstDateAtLeast(ymd: number): string {
  let y = Math.floor(ymd / 10000);
  let m = Math.floor(ymd / 100) % 100;
  let d = ymd % 100;
  if (d > new Date(Date.UTC(y, m, 0)).getUTCDate()) {
    d = 1;
    m += 1;
    if (m > 12) { m = 1; y += 1; }
  }
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * Age bands by comparing birth dates with thresholds computed once: a holder is k or older exactly when
 * its YYYYMMDD birth ≤ today − k·10000. Thresholds ascending (61, 51, 41, 31, 18 years, then tomorrow):
 * width_bucket gives 0 over 60 … 5 under 18 and 6 for a birth after today, so 5 − bucket is the band
 * index (−1 unknown). Member birthdays are compared as dates with the first real date at or past each
 * YYYYMMDD threshold, so no date is taken apart per row.
 */
export function ageThresholds(today: number): { ymd: number[]; dates: string[] } {
  const ymd = [610000, 510000, 410000, 310000, 180000, 0].map((k) => today - k + 1);
  return { ymd, dates: ymd.map(firstDateAtLeast) };
}

export async function portrait(db: Executor, scope: Scope, f: { cardModelId?: number | null; provinceId?: number | null; today: number }): Promise<PortraitCounts> {
  const conds: Expression<SqlBool>[] = [sql<SqlBool>`not b.is_deleted`, sql<SqlBool>`not c.is_deleted`, cardVisible(scope)];
  if (f.cardModelId != null) conds.push(sql<SqlBool>`c.card_model_id = ${f.cardModelId}`);
  // The ID number's gender, birth (YYYYMMDD, its digits taken as they are) and district are stored on
  // the binding when it is written (card_binding.id_sex, id_birth, id_district; migration 0020).
  const t = ageThresholds(f.today);
  const dates = sql`array[${sql.join(t.dates.map((d) => sql`${d}::date`))}]`;
  const ymds = sql`array[${sql.join(t.ymd.map((n) => sql`${n}::int`))}]`;
  const band = sql`case when m.birthday is not null then 5 - width_bucket(m.birthday, ${dates})
    when b.id_birth is not null then 5 - width_bucket(b.id_birth, ${ymds}) else -1 end`;
  const { rows } = await sql<{ kind: string; key: string | null; name: string | null; n: string }>`
    with grouped as (
      select
        case when m.sex in (1, 2) then m.sex else coalesce(b.id_sex, 0) end as sex,
        ${band} as band,
        coalesce(m.area_id, b.id_district) as district,
        count(*) as n
      from card_binding b
      join card c on c.id = b.card_id
      join card_model cm on cm.id = c.card_model_id
      left join member m on m.id = b.member_id and not m.is_deleted
      where ${sql.join(conds, sql` and `)}
      group by 1, 2, 3
    ),
    placed as (
      select g.sex, g.band, g.n,
        case when r1.level_type = 3 then r1.parent_id when r1.level_type = 2 then r1.id else r2.id end as city_id
      from grouped g
      left join region r1 on r1.id = g.district
      left join region r2 on r2.id = g.district / 100 * 100 and r2.level_type = 2
    )
    select 'g' as kind, sex::text as key, null as name, sum(n) as n from placed group by sex
    union all
    select 'a', band::text, null, sum(n) from placed group by band
    union all
    select 'c', coalesce(p.city_id, 0)::text, rc.name, sum(p.n)
    from placed p left join region rc on rc.id = p.city_id
    ${f.provinceId != null ? sql`where rc.parent_id = ${f.provinceId}` : sql``}
    group by p.city_id, rc.name`.execute(db);
  const out: PortraitCounts = { gender: new Map(), age: new Map(), city: [] };
  for (const r of rows) {
    const n = Number(r.n);
    if (r.kind === 'g') out.gender.set(Number(r.key), n);
    else if (r.kind === 'a') out.age.set(Number(r.key), n);
    else out.city.push({ cityId: Number(r.key), name: r.name, count: n });
  }
  return out;
}
