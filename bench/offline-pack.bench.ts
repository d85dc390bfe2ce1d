/**
 * The offline pack of a gate (issue 39 item 4: a 1M-card pack built in ≤ 10 s) on PostgreSQL
 * (DATABASE_URL): in a scratch database beside it, BENCH_PACK_CARDS (default 1,000,000) admissible
 * cards of two card models for one verifier's two spots are made by generate_series, with 200,000
 * cards of another model the pack must not visit and today's entries on 1% of the cards. Then a
 * whole pack is fetched over HTTP, uncompressed and gzip-compressed, timed to its last byte, with its
 * sizes; and a delta after 1,000 cards changed. The baseline, measured in the same run, is the raw
 * select of the same rows streamed by pg (COPY … TO STDOUT). No assertions; the scratch database is
 * dropped (BENCH_KEEP=1 keeps it).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openStore } from '../src/platform/store/index.js';
import * as world from './checkin-world.js';
import { report } from './report.js';

const baseUrl = world.benchServerUrl('offline-pack', { redisOptional: false });
const CARDS = Number(process.env.BENCH_PACK_CARDS ?? 1_000_000);
const OTHER_CARDS = 200_000;
const KEEP = process.env.BENCH_KEEP === '1';
const TAG = randomBytes(3).toString('hex');
process.env.TZ ??= 'Asia/Shanghai';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-bench-pack-'));
try {
  await world.withScratchWorld(
    {
      baseUrl,
      config: (url) => loadConfig({ DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'silent', TZ: process.env.TZ }),
      seedReference: false,
      keep: KEEP,
    },
    async (scratch) => {
      const { cfg: config, database, db } = scratch;
      const seeded = performance.now();
      const owner = await world.makeOwner(db, { merchant: `Bench scenic co. ${TAG}`, shop: `Bench spot ${TAG}` });
      const spots: Array<{ spu: number; sku: number }> = [];
      for (const name of ['Lake', 'Peak'])
        spots.push(
          await world.makeSpot(db, owner, {
            resource: `${name} ${TAG}`,
            entry: `${name} entry`,
            gates: ['North gate', 'South gate'],
          }),
        );
      // The annual pass is valid at both spots, the lake card at the lake, the third at neither.
      const models = [
        await world.makeCardModel(
          db,
          `Annual pass ${TAG}`,
          spots.map((s) => s.spu),
          2,
        ),
        await world.makeCardModel(db, `Lake card ${TAG}`, [spots[0].spu], 2),
        await world.makeCardModel(db, `Elsewhere card ${TAG}`, [], 2),
      ];
      const checker = await world.makeVerifier(db, owner, {
        mobile: '13700000000',
        name: 'Bench verifier',
        password: null,
        posts: spots.map((s) => ({ sku: s.sku, entrance: null })),
      });
      // Bulk rows without their row triggers (the statistics' roll-ups, not measured here), last changed
      // an hour ago, outside the overlap of a delta's cursor. Admissible cards alternate between the two
      // models; the other model's cards come after them.
      const bulk = new pg.Client({ connectionString: scratch.url });
      await bulk.connect();
      await bulk.query('set session_replication_role = replica');
      await bulk.query(
        `insert into card (card_number, card_model_id, status, medium, active_time, expire_time, created_at, updated_at)
    select 'P' || lpad(g::text, 11, '0'),
      case when g > $1 then $2::bigint when g % 2 = 0 then $3::bigint else $4::bigint end,
      2, 2, now() - interval '30 days', now() + (g % 300 + 1) * interval '1 day', now() - interval '1 hour', now() - interval '1 hour'
    from generate_series(1, $5::integer) g`,
        [CARDS, models[2], models[0], models[1], CARDS + OTHER_CARDS],
      );
      await bulk.query(
        `insert into card_binding (card_id, name, phone, id_type, id_no, created_at, updated_at)
    select id,
      substr('王李张刘陈杨黄赵吴周', (id % 10)::int + 1, 1) || substr('伟芳娜敏静丽强磊军洋', (id / 10 % 10)::int + 1, 1)
        || case when id % 3 = 0 then substr('华明红平刚', (id / 100 % 5)::int + 1, 1) else '' end,
      '139' || lpad(id::text, 8, '0'), 1, 'ID' || id, now() - interval '1 hour', now() - interval '1 hour'
    from card`,
      );
      // Today's entries on 1% of the admissible cards.
      await bulk.query(
        `insert into card_check_day_count (card_id, resource_id, check_date, used, updated_at)
    select id, $1::bigint, current_date, 1, now() - interval '1 hour' from card where id % 100 = 0 and card_model_id <> $2::bigint`,
        [spots[0].spu, models[2]],
      );
      await bulk.end();
      await sql`analyze`.execute(db);
      const seedS = (performance.now() - seeded) / 1000;
      console.log(
        `seeded ${CARDS.toLocaleString('en')} admissible cards (+${OTHER_CARDS.toLocaleString('en')} of another model) in ${seedS.toFixed(1)} s`,
      );

      // ------------------------------------------------------------ baseline: the same rows, streamed by pg
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      const rawStarted = performance.now();
      let rawBytes = 0;
      const copy = client.query(
        copyTo(`copy (
      select c.id, c.card_model_id, c.card_number, b.name, c.active_time, c.expire_time
      from card c join card_binding b on b.card_id = c.id and not b.is_deleted
      where c.status = 2 and not c.is_deleted and c.card_model_id in (${models[0]}, ${models[1]})
        and c.active_time is not null and (c.expire_time is null or c.expire_time >= now())
      order by c.card_model_id, c.id) to stdout`),
      );
      for await (const chunk of copy as AsyncIterable<Buffer>) rawBytes += chunk.length;
      const rawS = (performance.now() - rawStarted) / 1000;
      await client.end();

      // ------------------------------------------------------------ the pack over HTTP
      const store = await openStore(null, `bench-pack-${TAG}:`);
      const app = await buildApp({ config, database, store, logger: false });
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const accessToken = await world.verifierToken(db, store, checker);

      /** The pack as the wire carries it (node:http: fetch would decompress), timed to its last byte. */
      function fetchPack(gzip: boolean, since?: string) {
        const started = performance.now();
        const body = JSON.stringify(since ? { since } : {});
        return new Promise<{ status: number; encoding: string | null; bytes: number; seconds: number; head: string }>(
          (resolve, reject) => {
            const req = http.request(
              `${url}/app-api/checker/offlinePack`,
              {
                method: 'POST',
                headers: {
                  authorization: `Bearer ${accessToken}`,
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(body),
                  ...(gzip ? { 'accept-encoding': 'gzip' } : {}),
                },
              },
              (res) => {
                let bytes = 0;
                let head = '';
                res.on('data', (chunk: Buffer) => {
                  bytes += chunk.length;
                  if (!gzip && head.length < 200_000) head += chunk.toString();
                });
                res.on('end', () =>
                  resolve({
                    status: res.statusCode ?? 0,
                    encoding: (res.headers['content-encoding'] as string | undefined) ?? null,
                    bytes,
                    seconds: (performance.now() - started) / 1000,
                    head,
                  }),
                );
                res.on('error', reject);
              },
            );
            req.on('error', reject);
            req.end(body);
          },
        );
      }

      const plain = await fetchPack(false);
      const header = JSON.parse(plain.head.slice(0, plain.head.indexOf('\n')));
      const zipped = await fetchPack(true);
      const plain2 = await fetchPack(false);
      const best = Math.min(plain.seconds, plain2.seconds);

      await sql`update card set status = 3, updated_at = now() where id in (select id from card where card_model_id = ${models[0]} order by id limit 500)`.execute(
        db,
      );
      await sql`update card_check_day_count set used = 2, updated_at = now() where card_id in (select card_id from card_check_day_count order by card_id limit 500)`.execute(
        db,
      );
      const delta = await fetchPack(false, header.cursor);
      const deltaHeader = JSON.parse(delta.head.slice(0, delta.head.indexOf('\n')));
      await app.close();
      await store.close();

      console.log(`offline pack of ${CARDS.toLocaleString('en')} cards on PostgreSQL, over HTTP`);
      console.log(`  raw select streamed by pg (COPY): ${rawS.toFixed(2)} s, ${(rawBytes / 1e6).toFixed(1)} MB`);
      for (const [name, m] of [
        ['pack', plain],
        ['pack again', plain2],
        ['pack gzip', zipped],
      ] as const)
        console.log(
          `  ${name.padEnd(10)}: ${m.seconds.toFixed(2)} s, ${(m.bytes / 1e6).toFixed(1)} MB on the wire (HTTP ${m.status}${m.encoding ? `, ${m.encoding}` : ''})`,
        );
      console.log(
        `  delta after 500 cards disabled and 500 counters raised: ${delta.seconds.toFixed(2)} s, ${(delta.bytes / 1e3).toFixed(1)} kB (full: ${deltaHeader.full})`,
      );
      report({
        goal: `offline pack of ${CARDS.toLocaleString('en')} cards over HTTP (PostgreSQL), time`,
        value: best,
        unit: 's',
        baseline: { name: 'the same rows streamed by pg (COPY)', value: rawS },
        ratio: best / rawS,
        target: '≤ 10 s',
        met: best <= 10,
        database: 'postgres',
      });
      report({
        goal: `offline pack of ${CARDS.toLocaleString('en')} cards, gzip size`,
        value: zipped.bytes / 1e6,
        unit: 'MB',
        baseline: { name: 'uncompressed', value: plain.bytes / 1e6 },
        ratio: zipped.bytes / plain.bytes,
        target: 'stated',
        met: true,
        database: 'postgres',
      });
      report({
        goal: 'offline pack delta after 1,000 changes, time',
        value: delta.seconds,
        unit: 's',
        target: 'seconds',
        met: delta.seconds <= 5 && !deltaHeader.full,
        database: 'postgres',
      });
    },
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
