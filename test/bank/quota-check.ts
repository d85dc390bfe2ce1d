import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Db } from '../../src/platform/db/database.js';
import type { BankChannel } from './bank-fixtures.js';

/**
 * What a run of concurrent activations against an operator quota must leave: exactly `quota`
 * successes and 503 for the rest; as many records, orders, activated cards and bindings; no card
 * bound twice, no phone or ID number activated twice in the channel.
 */
export async function checkQuotaRun(
  db: Db,
  bank: BankChannel,
  outcome: Array<number | string>,
  o: { attempts: number; quota: number },
): Promise<void> {
  const tally: Record<string, number> = {};
  for (const x of outcome) tally[String(x)] = (tally[String(x)] ?? 0) + 1;
  expect(tally).toEqual({ 200: o.quota, 503: o.attempts - o.quota });

  const count = async (query: ReturnType<typeof sql<{ n: number }>>) => Number((await query.execute(db)).rows[0].n);
  const channel = bank.channelInfoId;
  expect(await count(sql`select count(*) as n from activation_record where channel_info_id = ${channel}`)).toBe(
    o.quota,
  );
  expect(
    await count(
      sql`select count(*) as n from activation_record where channel_info_id = ${channel} and active_status = 1 and card_id is not null`,
    ),
  ).toBe(o.quota);
  expect(
    await count(sql`select count(*) as n from channel_order where channel_info_id = ${channel} and status = 2`),
  ).toBe(o.quota);
  expect(
    await count(sql`select count(distinct card_id) as n from activation_record where channel_info_id = ${channel}`),
  ).toBe(o.quota);
  expect(
    await count(sql`select count(distinct user_phone) as n from activation_record where channel_info_id = ${channel}`),
  ).toBe(o.quota);
  expect(
    await count(sql`select count(distinct user_idno) as n from activation_record where channel_info_id = ${channel}`),
  ).toBe(o.quota);
  const poolCards = sql`select id from card where card_model_id = ${bank.cardModelId}`;
  expect(
    await count(
      sql`select count(*) as n from card where card_model_id = ${bank.cardModelId} and status = 2 and active_time is not null`,
    ),
  ).toBe(o.quota);
  expect(await count(sql`select count(*) as n from card_binding where card_id in (${poolCards})`)).toBe(o.quota);
  expect(
    await count(
      sql`select count(*) as n from (select card_id from card_binding where card_id in (${poolCards}) group by card_id having count(*) > 1) x`,
    ),
  ).toBe(0);
  // every record names the card bound to its own phone
  expect(
    await count(sql`select count(*) as n from activation_record a join card_binding b on b.card_id = a.card_id and b.phone = a.user_phone
    where a.channel_info_id = ${channel}`),
  ).toBe(o.quota);
}
