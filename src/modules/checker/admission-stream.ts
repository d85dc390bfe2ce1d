import type { Scope } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import { dayText } from '../../platform/date-range.js';
import { formatDateTime, parseDateTime } from '../../platform/time.js';
import { pollAdmissions, spotsOfDay, type Day } from './admissions.repository.js';

/**
 * The admissions every open stream of this instance shows (docs/adr/0108-admission-stream-sse-over-fetch-one-poller.md):
 * one poller per instance, running while at least one stream is open, reads every second in one
 * statement the entries per spot and minute of the last two minutes and the day totals of the spots
 * they touch (or whose day counter changed), compares them with what it read before, and hands each
 * change to every subscribed stream, which keeps those in its scope. Check-ins made on any instance
 * are in the database, so every instance's streams show them within a poll. Every 30 polls it also
 * reads every spot's day total, which catches what the minutes do not show (an offline upload of a
 * spot without a capacity, a revocation).
 */

export const POLL_MS = 1_000;
/** Polls between two full reads of the day totals. */
const FULL_EVERY = 30;
/** How far back a poll reads minutes: the current one and the one before (a check committed late). */
const RECENT_MINUTES = 2;
/** Counter rows changed this long before the previous poll are read again (clocks of instances differ). */
const SINCE_MARGIN_MS = 5_000;
const MINUTE_MS = 60_000;

/** One spot's change: its day total and the minutes whose figures changed (absolute figures, not deltas). */
export interface AdmissionChange {
  skuId: number;
  skuName: string;
  merchantId: number;
  shopId: number | null;
  dailyCapacity: number | null;
  admitted: number;
  minutes: Array<{ minute: string; admitted: number }>;
  at: string;
}

export interface Subscriber {
  change(c: AdmissionChange): void;
  /** the server ends the stream (shutdown) */
  end(): void;
}

interface SpotState {
  skuName: string;
  merchantId: number;
  shopId: number | null;
  dailyCapacity: number | null;
  day: number;
  minutes: Map<number, number>;
}

export function dayOf(now: Date): Day {
  const date = dayText(now);
  const start = parseDateTime(date)!;
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return { date, start, end };
}

/** True when a spot owned by these merchant and shop lies in the scope. */
export function inScope(scope: Scope, merchantId: number, shopId: number | null): boolean {
  if (scope.kind === 'platform') return true;
  if (merchantId !== scope.merchantId) return false;
  return scope.kind === 'merchant' || shopId === scope.shopId;
}

export class AdmissionHub {
  private readonly subscribers = new Set<Subscriber>();
  private readonly state = new Map<number, SpotState>();
  private open = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private polls = 0;
  private lastPollAt: Date | null = null;
  private currentDay: string | null = null;
  private onError: (err: unknown) => void = () => {};

  constructor(
    private readonly db: Db,
    readonly maxStreams: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get openStreams(): number {
    return this.open;
  }

  /** Takes one of the instance's stream places; false when all are taken. */
  acquire(): boolean {
    if (this.open >= this.maxStreams) return false;
    this.open++;
    return true;
  }

  release(): void {
    this.open = Math.max(0, this.open - 1);
  }

  /** Hands later changes to `s`; the poller runs while anyone is subscribed. Answers the unsubscribe. */
  subscribe(s: Subscriber, onError?: (err: unknown) => void): () => void {
    this.subscribers.add(s);
    if (onError) this.onError = onError;
    if (!this.timer) {
      this.polls = 0;
      this.timer = setInterval(() => this.tick(), POLL_MS);
      this.timer.unref();
    }
    return () => {
      this.subscribers.delete(s);
      if (this.subscribers.size === 0) this.stopPolling();
    };
  }

  /** Ends every stream and stops the poller, waiting for a poll in progress (the app is closing). */
  async closeAll(): Promise<void> {
    for (const s of [...this.subscribers]) s.end();
    this.subscribers.clear();
    this.stopPolling();
    await this.running;
  }

  private stopPolling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.state.clear();
    this.lastPollAt = null;
    this.currentDay = null;
  }

  private tick(): void {
    if (this.running) return; // a slow poll is not doubled
    this.running = this.poll()
      .catch((err: unknown) => this.onError(err))
      .finally(() => {
        this.running = null;
      });
  }

  private async poll(): Promise<void> {
    const now = this.now();
    const day = dayOf(now);
    const at = formatDateTime(now)!;
    const changes = new Map<number, AdmissionChange>();
    if (this.currentDay !== day.date) {
      // A new day: yesterday's totals drop to zero on every board, and the state starts afresh.
      if (this.currentDay !== null) {
        for (const [skuId, s] of this.state) if (s.day > 0) changes.set(skuId, this.changeOf(skuId, s, 0, at));
      }
      this.state.clear();
      this.currentDay = day.date;
      this.polls = 0;
    }
    const since = new Date((this.lastPollAt ?? now).getTime() - SINCE_MARGIN_MS);
    const from = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - (RECENT_MINUTES - 1) * MINUTE_MS);
    const rows = await pollAdmissions(this.db, { from, since, day });
    this.lastPollAt = now;

    // Day totals first: they carry the spot's name, owners and capacity.
    for (const r of rows) {
      if (r.minute !== null) continue;
      let s = this.state.get(r.skuId);
      if (!s) {
        s = {
          skuName: r.skuName ?? '',
          merchantId: r.merchantId ?? 0,
          shopId: r.shopId,
          dailyCapacity: r.dailyCapacity,
          day: -1,
          minutes: new Map(),
        };
        this.state.set(r.skuId, s);
      }
      s.dailyCapacity = r.dailyCapacity;
      if (s.day !== r.admitted) {
        s.day = r.admitted;
        changes.set(r.skuId, this.changeOf(r.skuId, s, r.admitted, at));
      }
    }
    // Minutes of the window: changed figures, and those that went (every check of a minute revoked).
    const seen = new Set<string>();
    for (const r of rows) {
      if (r.minute === null) continue;
      const s = this.state.get(r.skuId);
      if (!s) continue;
      const key = r.minute.getTime();
      seen.add(`${r.skuId}:${key}`);
      if (s.minutes.get(key) !== r.admitted) {
        s.minutes.set(key, r.admitted);
        this.minuteChanged(changes, r.skuId, s, key, r.admitted, at);
      }
    }
    for (const [skuId, s] of this.state) {
      for (const [key, n] of s.minutes) {
        if (key < from.getTime() - MINUTE_MS)
          s.minutes.delete(key); // out of the window: kept no longer
        else if (key >= from.getTime() && !seen.has(`${skuId}:${key}`) && n !== 0) {
          s.minutes.set(key, 0);
          this.minuteChanged(changes, skuId, s, key, 0, at);
        }
      }
    }

    if (this.polls++ % FULL_EVERY === 0) await this.fullRead(day, changes, at, this.polls === 1);
    for (const c of changes.values()) for (const s of [...this.subscribers]) s.change(c);
  }

  /** Every spot's day total (and capacity); the first read after the poller starts only learns them. */
  private async fullRead(day: Day, changes: Map<number, AdmissionChange>, at: string, quiet: boolean) {
    const spots = await spotsOfDay(this.db, { kind: 'platform' }, null, day);
    for (const r of spots) {
      const s = this.state.get(r.skuId);
      if (!s) {
        this.state.set(r.skuId, {
          skuName: r.skuName,
          merchantId: r.merchantId,
          shopId: r.shopId,
          dailyCapacity: r.dailyCapacity,
          day: r.admitted,
          minutes: new Map(),
        });
        if (!quiet && r.admitted > 0)
          changes.set(r.skuId, this.changeOf(r.skuId, this.state.get(r.skuId)!, r.admitted, at));
        continue;
      }
      if (s.day !== r.admitted || s.dailyCapacity !== r.dailyCapacity) {
        s.day = r.admitted;
        s.dailyCapacity = r.dailyCapacity;
        if (!quiet) changes.set(r.skuId, this.changeOf(r.skuId, s, r.admitted, at));
      }
    }
  }

  private minuteChanged(
    changes: Map<number, AdmissionChange>,
    skuId: number,
    s: SpotState,
    key: number,
    admitted: number,
    at: string,
  ) {
    let c = changes.get(skuId);
    if (!c) {
      c = this.changeOf(skuId, s, s.day, at);
      changes.set(skuId, c);
    }
    c.minutes.push({ minute: formatDateTime(new Date(key))!, admitted });
  }

  private changeOf(skuId: number, s: SpotState, admitted: number, at: string): AdmissionChange {
    return {
      skuId,
      skuName: s.skuName,
      merchantId: s.merchantId,
      shopId: s.shopId,
      dailyCapacity: s.dailyCapacity,
      admitted,
      minutes: [],
      at,
    };
  }
}
