/**
 * The raw SQL baselines of executeCalc (issue 10), shared by bench/allocation.bench.ts and
 * bench/scale.bench.ts: one statement aggregating the very check rows executeCalc aggregates
 * ($1 card model ids, $2 start, $3 end of the month), and the valid-user counts it also needs.
 */
export const ALLOCATION_BASELINE_SQL = `
    select c.card_model_id, c.resource_id, sum(c.consume_num) as check_num
    from card_check c
    where c.card_model_id = any ($1::bigint[])
      and c.resource_id = any (array(select distinct resource_id from card_model_resource_rule
                                     where card_model_id = any ($1::bigint[]) and settlement_way = 5 and not is_deleted))
      and c.check_time >= $2 and c.check_time < $3 and not c.is_deleted
    group by c.card_model_id, c.resource_id`;

export const ALLOCATION_COUNTS_SQL = `
    select card_model_id, count(*) from card
    where card_model_id = any ($1::bigint[]) and status <> 3 and not is_deleted and expire_time >= $2 and active_time < $3
    group by card_model_id`;
