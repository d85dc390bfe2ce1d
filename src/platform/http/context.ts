/** What a service knows of the request that called it: who, from where, through which channel. */

export type Channel = 'app' | 'manage' | 'mp' | 'open';

export const CHANNEL_PREFIX: Record<Channel, string> = {
  app: '/app-api',
  manage: '/manage-api',
  mp: '/mp-api',
  open: '/open-api',
};

/** admin = staff (platform, merchant, shop users); openApp = a signed open-channel caller. */
export type AccountKind = 'admin' | 'checker' | 'member' | 'bank' | 'openApp';

export const UserType = { PLATFORM: 1, MERCHANT: 2, SHOP: 3 } as const;

export interface Account {
  id: number;
  kind: AccountKind;
  name: string;
  /** Staff only: 1 platform, 2 merchant, 3 shop. */
  userType: number | null;
  merchantId: number | null;
  shopId: number | null;
  permissions: string[];
}

export interface Operation {
  module: string;
  action: string;
}

export interface RequestContext {
  account: Account | null;
  /** SHA-256 of the access token that authenticated the call, the key of its session. */
  tokenHash: string | null;
  /** Stable across token refreshes: the key of per-session values (SessionValues). */
  sessionId: string | null;
  channel: Channel;
  ip: string;
  userAgent: string;
  method: string;
  path: string;
  startedAt: number;
  /** The operation-log labels the route declares; null when the operation is not logged. */
  operation: Operation | null;
  /**
   * Where the operation-log row stands: not written, written inside a transaction (gone again if that
   * transaction rolls back, so a failure still gets its row), or written for good.
   */
  operationLog: 'none' | 'in-transaction' | 'written';
}

export interface AuthedContext extends RequestContext {
  account: Account;
  tokenHash: string;
  sessionId: string;
}

/** Narrows the context of a route that required a token session. */
export function authed(ctx: RequestContext): AuthedContext {
  if (!ctx.account || !ctx.tokenHash || !ctx.sessionId) throw new Error('route reached without a token session');
  return ctx as AuthedContext;
}
