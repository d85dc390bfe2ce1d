import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { dayText, parseDateField } from '../../platform/date-range.js';
import type { AppError } from '../../platform/errors.js';
import type { AuthedContext } from '../../platform/http/context.js';
import { operationLogWritten, pendingOperationLog } from '../../platform/oplog/oplog.js';
import { conflictsOfChecks } from './check-conflict.repository.js';
import {
  assertAllowed,
  chooseCard,
  clampSkew,
  scanTimeRefusal,
  type CardCandidate,
  type ScanPlace,
} from './checkin-rules.js';
import { dailyLimitReached, isScanRefusal, nonceReused } from './checkin.errors.js';
import { CheckType, logScanRefusal } from './checkin-refusal.js';
import * as repo from './checkin.repository.js';
import { awaitCommitsFlushed, withUnflushedCommits } from './offline-sync.repository.js';
import type { OfflineScanResult, SyncOfflineChecksRequest, SyncOfflineChecksResponse } from './offline-sync.schemas.js';

/**
 * Scans judged on one pooled connection before it goes back to the pool (for other requests, the
 * online check-ins among them).
 */
const CONNECTION_GROUP = 50;

/** A scan of the upload, its time read. */
interface Scan {
  index: number;
  nonce: string;
  cardNumber: string;
  skuId: number;
  entranceId: number | null;
  consumeNum: number;
  at: Date;
}

/** A scan's answer before the conflicts of re-sent checks are read (`conflictsOf`: the check whose to read). */
type Outcome = OfflineScanResult & { conflictsOf?: number };

function readScans(input: SyncOfflineChecksRequest, now: Date): Scan[] {
  return input.scans.map((s, index) => {
    const at = parseDateField(`scans[${index}].checkTime`, s.checkTime);
    return {
      index,
      nonce: s.nonce,
      cardNumber: s.cardNumber.trim(),
      skuId: s.skuId,
      entranceId: s.entranceId ?? null,
      consumeNum: s.consumeNum ?? 1,
      at: clampSkew(at, now),
    };
  });
}

const refused = (nonce: string, err: AppError): Outcome => ({
  nonce,
  result: 'refused',
  errcode: err.errcode,
  errmsg: err.message,
});

/**
 * `syncOfflineChecks` (docs/domain.md §4.1): a gate's scans made offline, up to 500 a request. Each is
 * judged at its own time, in time order (ties in the request's order), by the check-in statement of
 * `addCheckerConsumeRecord` (`checkInScan`, one statement per scan, committed on its own before the
 * next is judged), in its record mode: the gate has admitted the visitor already, so a card's daily
 * limit or a spot's capacity broken by gates deciding alone does not refuse the scan but is recorded
 * with it as a conflict. The other rules refuse as online, each refusal in the failed-scan log under
 * its nonce, so a re-sent scan answers the same. Every scan is stored before the answer: a cut
 * request is sent again and answers what was stored as duplicates.
 */
export function createOfflineSyncService(deps: { db: Db; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /** What an earlier send of this nonce got, for this scan: its answer, or 013 when it was another scan. */
  function earlierAnswer(scan: Scan, earlier: repo.EarlierScan): Outcome {
    if (earlier.skuId !== scan.skuId || earlier.cardNumber !== scan.cardNumber)
      return refused(scan.nonce, nonceReused());
    if (earlier.kind === 'refused')
      return { nonce: scan.nonce, result: 'duplicate', errcode: earlier.errcode, errmsg: earlier.reason };
    return { nonce: scan.nonce, result: 'duplicate', id: earlier.checkId, conflictsOf: earlier.checkId };
  }

  /** One scan: one statement that reads, judges and (when it passes) writes; a refusal logged after it. */
  async function judge(conn: Db, ctx: AuthedContext, scan: Scan, started: Date): Promise<Outcome> {
    const checkerId = ctx.account.id;
    let place: ScanPlace | null = null;
    let card: CardCandidate | null = null;
    try {
      const judgement: repo.ScanJudgement = {
        checkerId,
        skuId: scan.skuId,
        entranceId: scan.entranceId,
        key: { cardNumber: scan.cardNumber },
        nonce: scan.nonce,
        at: scan.at,
        offline: true,
        recordOverBounds: true,
      };
      const reading = await repo.checkInScan(
        conn,
        judgement,
        {
          consumeNum: scan.consumeNum,
          checkType: CheckType.CARD,
          checkDate: dayText(scan.at),
          nonce: scan.nonce,
          photo: null,
          timeAllowed: scanTimeRefusal(scan.at, started) === null,
        },
        pendingOperationLog(ctx),
      );
      if (reading.earlier) return earlierAnswer(scan, reading.earlier);
      place = reading.place;
      // The order of online refusals: the post, the time, then the card (docs/domain.md §4).
      const at = assertAllowed(reading.place, scan.skuId, scan.entranceId);
      const late = scanTimeRefusal(scan.at, started);
      if (late) throw late;
      const written = reading.written;
      if (!written) {
        const choice = chooseCard(reading.cards, 'card', at, scan.consumeNum);
        card = choice.card;
        throw choice.refusal ?? dailyLimitReached(choice.card.dailyLimit, scan.consumeNum);
      }
      return written.conflicts.length > 0
        ? { nonce: scan.nonce, result: 'conflict', id: written.id, conflicts: written.conflicts }
        : { nonce: scan.nonce, result: 'recorded', id: written.id };
    } catch (err) {
      // The same scan sent by a concurrent request won the nonce: answer what it wrote.
      if (isUniqueViolation(err, repo.NONCE_INDEX)) {
        const earlier = await repo.findEarlierScan(conn, checkerId, scan.nonce);
        if (earlier) return earlierAnswer(scan, earlier);
      }
      if (!isScanRefusal(err)) throw err;
      await logScanRefusal(
        conn,
        ctx,
        { ...scan, checkType: CheckType.CARD, idType: null, idNo: null, facePhoto: null },
        place,
        card,
        err,
      );
      return refused(scan.nonce, err);
    }
  }

  return {
    async sync(ctx: AuthedContext, input: SyncOfflineChecksRequest): Promise<SyncOfflineChecksResponse> {
      const started = now();
      const scans = readScans(input, started);
      // A nonce sent twice in one request: the later (in the request's order) is a re-send of the first.
      const firstOf = new Map<string, Scan>();
      const repeats: Array<[Scan, Scan]> = [];
      for (const scan of scans) {
        const first = firstOf.get(scan.nonce);
        if (first) repeats.push([scan, first]);
        else firstOf.set(scan.nonce, scan);
      }
      const inTimeOrder = [...firstOf.values()].sort((a, b) => a.at.getTime() - b.at.getTime() || a.index - b.index);
      const outcomes: Outcome[] = new Array(scans.length);
      for (let g = 0; g < inTimeOrder.length; g += CONNECTION_GROUP) {
        await withUnflushedCommits(db, async (conn) => {
          for (const scan of inTimeOrder.slice(g, g + CONNECTION_GROUP))
            outcomes[scan.index] = await judge(conn, ctx, scan, started);
        });
      }
      await awaitCommitsFlushed(db);
      // Each recorded check carried its own operation-log row.
      if (outcomes.some((o) => o?.result === 'recorded' || o?.result === 'conflict')) operationLogWritten(ctx);

      for (const [scan, first] of repeats) {
        const answer = outcomes[first.index];
        outcomes[scan.index] =
          scan.skuId !== first.skuId || scan.cardNumber !== first.cardNumber
            ? refused(scan.nonce, nonceReused())
            : { ...answer, nonce: scan.nonce, result: 'duplicate' };
      }
      const recorded = await conflictsOfChecks(
        db,
        outcomes.flatMap((o) => (o.conflictsOf === undefined ? [] : [o.conflictsOf])),
      );
      return {
        results: outcomes.map(({ conflictsOf, ...answer }) => {
          const conflicts = conflictsOf === undefined ? undefined : recorded.get(conflictsOf);
          return conflicts ? { ...answer, conflicts } : answer;
        }),
      };
    },
  };
}

export type OfflineSyncService = ReturnType<typeof createOfflineSyncService>;
