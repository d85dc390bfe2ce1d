/** Why a read the route allows on the replica went to the primary. */
export type SkipReason = 'lag' | 'unreachable' | 'own-write' | 'recent-write';

export type ReplicaState = 'usable' | 'lag' | 'unreachable';

/** Primary positions kept while the replica is behind them (two checks a second: minutes of them). */
const SAMPLES_KEPT = 1_000;

/** One statement on a pool of its own, bounded (the monitor must not hang on a silent server). */
export type ProbeQuery = (text: string) => Promise<Array<Record<string, unknown>>>;

export interface ReplicaLagOptions {
  maxLagMs: number;
  everyMs: number;
}

export type ReplicaStateListener = (state: ReplicaState, lagMs: number | null) => void;

/** 'X/Y' (hexadecimal halves of a 64-bit WAL position) as a number to compare. */
export function parseLsn(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/**
 * Watches how far the replica is behind the primary (docs/adr/0101-reads-on-a-streaming-replica.md). Every
 * `everyMs` it reads the primary's current WAL position, then the replica's replayed one. The lag is
 * the age of the newest primary position already replayed: the replica holds at least everything
 * the primary had then, so that age bounds how old its data can be (to one check's resolution) —
 * and an idle primary, whose position stands still, shows no lag, where the age of the last
 * replayed commit (pg_last_xact_replay_timestamp) would grow for ever.
 */
export class ReplicaLag {
  state: ReplicaState = 'unreachable';
  /** null until the replica has answered, and while it does not */
  lagMs: number | null = null;
  private readonly seen: Array<{ lsn: bigint; at: number }> = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly listeners: ReplicaStateListener[] = [];

  constructor(
    private readonly primary: ProbeQuery,
    private readonly replica: ProbeQuery,
    private readonly opts: ReplicaLagOptions,
  ) {}

  get usable(): boolean {
    return this.state === 'usable';
  }

  /** Told when the state changes (the app logs it). */
  listen(listener: ReplicaStateListener): void {
    this.listeners.push(listener);
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.running = this.check().finally(() => {
        this.running = null;
        if (this.timer) this.timer = setTimeout(tick, this.opts.everyMs).unref();
      });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** A read that found the replica gone: skipped from now until a check finds it again. */
  markUnreachable(): void {
    this.set('unreachable', null);
  }

  /** One check (also run by the timer). */
  async check(): Promise<void> {
    const at = Date.now();
    let primaryLsn: bigint;
    try {
      const [row] = await this.primary('select pg_current_wal_lsn()::text as lsn');
      primaryLsn = parseLsn(String(row.lsn));
    } catch {
      // The primary's own trouble is /readyz's to tell; the replica's state stays as it was.
      return;
    }
    let replayed: bigint | null;
    try {
      const [row] = await this.replica('select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as lsn');
      // A promoted replica (no longer in recovery) is as fresh as any primary.
      replayed = row.standby === true && row.lsn !== null ? parseLsn(String(row.lsn)) : null;
    } catch {
      this.set('unreachable', null);
      return;
    }
    if (replayed === null || replayed >= primaryLsn) {
      this.seen.length = 0;
      this.seen.push({ lsn: primaryLsn, at });
      this.set('usable', Date.now() - at);
      return;
    }
    this.seen.push({ lsn: primaryLsn, at });
    if (this.seen.length > SAMPLES_KEPT) this.seen.splice(0, this.seen.length - SAMPLES_KEPT);
    // The newest position replayed; the older ones say no more than it.
    let newest = -1;
    for (let i = 0; i < this.seen.length; i += 1) if (this.seen[i].lsn <= replayed) newest = i;
    if (newest > 0) this.seen.splice(0, newest);
    const lagMs = Date.now() - this.seen[0].at;
    // Behind every position seen (the first check, or after the replica was away): how far is not
    // known, so it is not used until it has replayed one of them.
    if (newest < 0) this.set('lag', lagMs);
    else this.set(lagMs > this.opts.maxLagMs ? 'lag' : 'usable', lagMs);
  }

  private set(state: ReplicaState, lagMs: number | null): void {
    const changed = state !== this.state;
    this.state = state;
    this.lagMs = lagMs;
    if (changed) for (const listener of this.listeners) listener(state, lagMs);
  }
}
