import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { timestamptzReader } from '../../src/platform/db/timestamp-text.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';

/** node-postgres's own reader of timestamptz text (postgres-date), which the fast reader must equal. */
const driverReader = pg.types.getTypeParser(1184, 'text') as (text: string) => unknown;
const read = timestamptzReader(driverReader);

const timeOf = (v: unknown) => (v instanceof Date ? v.getTime() : v);

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
}

const p2 = (n: number) => String(n).padStart(2, '0');

/** An instant written as PostgreSQL writes it for a session whose offset then is `offsetS` seconds. */
function pgText(ms: number, micros: number, fractionDigits: number, offsetS: number): string {
  const local = new Date(ms + offsetS * 1000);
  const fraction = String(micros).padStart(6, '0').slice(0, fractionDigits).replace(/0+$/, '');
  const abs = Math.abs(offsetS);
  const [h, m, s] = [Math.floor(abs / 3600), Math.floor((abs % 3600) / 60), abs % 60];
  const zone = `${offsetS < 0 ? '-' : '+'}${p2(h)}${m || s ? `:${p2(m)}` : ''}${s ? `:${p2(s)}` : ''}`;
  return `${local.getUTCFullYear()}-${p2(local.getUTCMonth() + 1)}-${p2(local.getUTCDate())} ${p2(local.getUTCHours())}:${p2(local.getUTCMinutes())}:${p2(local.getUTCSeconds())}${fraction ? `.${fraction}` : ''}${zone}`;
}

describe('the timestamptz reader', () => {
  it('reads 100,000 instants of years 1000–9999, in whole, half-hour and historic second offsets, as node-postgres does', () => {
    const next = random(20261127);
    const offsets = [
      0,
      8 * 3600,
      -(3 * 3600 + 30 * 60),
      5 * 3600 + 45 * 60,
      8 * 3600 + 5 * 60 + 43,
      -(25 * 60 + 21),
      14 * 3600,
      -12 * 3600,
    ];
    const low = Date.UTC(1000, 0, 2);
    const high = Date.UTC(9999, 11, 30);
    let compared = 0;
    for (let i = 0; i < 100_000; i++) {
      const ms = low + Math.floor((next() * (high - low)) / 1000) * 1000;
      const text = pgText(ms, Math.floor(next() * 1_000_000), Math.floor(next() * 7), offsets[i % offsets.length]);
      const mine = read(text);
      expect(mine).toBeInstanceOf(Date);
      if (timeOf(mine) !== timeOf(driverReader(text)))
        expect({ text, mine }).toEqual({ text, mine: driverReader(text) });
      compared++;
    }
    expect(compared).toBe(100_000);
  });

  it('truncates the fraction to milliseconds as node-postgres does', () => {
    for (const [fraction, ms] of [
      ['5', 500],
      ['05', 50],
      ['123', 123],
      ['1239', 123],
      ['999999', 999],
      ['000001', 0],
    ] as const) {
      const text = `2026-11-27 10:00:00.${fraction}+08`;
      expect((read(text) as Date).getTime()).toBe((driverReader(text) as Date).getTime());
      expect((read(text) as Date).getUTCMilliseconds()).toBe(ms);
    }
  });

  it('hands every other form to the driver’s reader, whose answer it returns', () => {
    const fallback = vi.fn(driverReader);
    const guarded = timestamptzReader(fallback);
    const others = [
      'infinity',
      '-infinity',
      '0099-06-30 12:00:00+00',
      '0999-06-30 12:00:00+08',
      '2000-01-01 00:00:00+00 BC',
      '10000-01-01 00:00:00+00',
      '2026-11-27 10:00:00',
      '2026-11-27 10:00:00.+08',
      '2026-11-27 10:00:00+8',
      '2026-11-27 10:00:00+08:3',
      '2026-11-27 10:00:00+08:30:00:00',
      '2026-11-27T10:00:00+08',
      '2026-1x-27 10:00:00+08',
    ];
    for (const text of others) {
      fallback.mockClear();
      expect(timeOf(guarded(text))).toEqual(timeOf(driverReader(text)));
      expect(fallback).toHaveBeenCalledWith(text);
    }
  });

  describe('on what the database writes', () => {
    let t: TestDb;
    beforeAll(async () => {
      t = await openTestDatabase();
    });
    afterAll(() => t?.close());

    it('reads the texts of this database in four session time zones as node-postgres does', async () => {
      const texts: string[] = [];
      for (const zone of ['Asia/Shanghai', 'Asia/Kolkata', 'America/St_Johns', 'UTC']) {
        await t.db.transaction().execute(async (trx) => {
          await sql`select set_config('TimeZone', ${zone}, true)`.execute(trx);
          const { rows } = await sql<{ text: string }>`
            select v::text as text from unnest(array[
              timestamptz '2026-11-27 10:11:12.345678+00', timestamptz '2026-06-30 23:59:59.5+00',
              timestamptz '1900-01-01 00:00:00+00', timestamptz '1969-12-31 23:59:59.999+00',
              timestamptz '9999-12-31 00:00:00+00', timestamptz '2000-02-29 12:00:00.01+00',
              timestamptz 'infinity', timestamptz '0044-03-15 12:00:00+00 BC'
            ]) v`.execute(trx);
          texts.push(...rows.map((r) => r.text));
        });
      }
      expect(texts).toContain('1900-01-01 08:05:43+08:05:43');
      expect(texts.some((x) => x.endsWith('+05:30'))).toBe(true);
      for (const text of texts)
        expect({ text, value: timeOf(read(text)) }).toEqual({ text, value: timeOf(driverReader(text)) });
    });
  });
});
