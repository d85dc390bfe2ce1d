import type { Store } from '../store/store.js';
import type { AuthedContext } from '../http/context.js';

/**
 * Values kept for the life of one login session (docs/architecture.md §5.3: an SMS code bound to the session,
 * the bank login's organisation relations). Keyed by the session id, which survives token refreshes;
 * once the session is revoked no request can name it again, and the values expire with their TTL.
 */
export class SessionValues {
  constructor(
    private readonly store: Store,
    /** no value outlives the longest a session can live (the refresh token's lifetime) */
    private readonly maxTtlS: number,
  ) {}

  private key(ctx: Pick<AuthedContext, 'sessionId'>, name: string): string {
    return `sv:${ctx.sessionId}:${name}`;
  }

  async set(ctx: Pick<AuthedContext, 'sessionId'>, name: string, value: string, ttlS = this.maxTtlS): Promise<void> {
    await this.store.set(this.key(ctx, name), value, Math.min(ttlS, this.maxTtlS));
  }

  get(ctx: Pick<AuthedContext, 'sessionId'>, name: string): Promise<string | null> {
    return this.store.get(this.key(ctx, name));
  }

  /** Reads and deletes in one step: a value used once. */
  take(ctx: Pick<AuthedContext, 'sessionId'>, name: string): Promise<string | null> {
    return this.store.take(this.key(ctx, name));
  }

  del(ctx: Pick<AuthedContext, 'sessionId'>, name: string): Promise<void> {
    return this.store.del(this.key(ctx, name));
  }
}
