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
 * Those attributes are resolved when a binding, card or member is written: stat_holder holds one narrow
 * row per living binding of a living card (migration 0021, kept by triggers). One statement: the
 * holders are grouped by (sex, age band, district), a few hundred groups, and only those groups meet
 * the region dictionary.
 */

export interface PortraitCounts {
  gender: Map<number, number>;
  /** band index 0–5 (<18, 18–30, 31–40, 41–50, 51–60, >60); -1 unknown */
  age: Map<number, number>;
  /** city region id (0 unknown) → holders, and the city's name */
  city: Array<{ cityId: number; name: string | null; count: number }>;
}

/**
 * Age bands by comparing YYYYMMDD births with thresholds computed once: a holder is k or older exactly
 * when its birth ≤ today − k·10000 (for a real date this is the calendar comparison; born on 29 February
 * one comes of age on 1 March, as 0229 < 0301). Thresholds ascending (61, 51, 41, 31, 18 years, then
 * tomorrow): width_bucket gives 0 over 60 … 5 under 18 and 6 for a birth after today, so 5 − bucket is
 * the band index (−1 unknown). No date is taken apart per row.
 */
export function ageThresholds(today: number): number[] {
  return [610000, 510000, 410000, 310000, 180000, 0].map((k) => today - k + 1);
}

export async function portrait(
  db: Executor,
  scope: Scope,
  f: { cardModelId?: number | null; provinceId?: number | null; today: number },
): Promise<PortraitCounts> {
  const conds: Expression<SqlBool>[] = [cardVisible(scope, 'h')];
  if (f.cardModelId != null) conds.push(sql<SqlBool>`h.card_model_id = ${f.cardModelId}`);
  const ymds = sql`array[${sql.join(ageThresholds(f.today).map((n) => sql`${n}::int`))}]`;
  const band = sql`case when h.birth is not null then 5 - width_bucket(h.birth, ${ymds}) else -1 end`;
  const { rows } = await sql<{ kind: string; key: string | null; name: string | null; n: string }>`
    with grouped as (
      select h.sex, ${band} as band, h.district, count(*) as n
      from stat_holder h
      join card_model cm on cm.id = h.card_model_id
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
