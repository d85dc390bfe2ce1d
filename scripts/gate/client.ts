/**
 * The gate's HTTP side: the verifier's login and token refresh, the envelope `{errcode, errmsg, data}`
 * of the app channel, and the raw answer of the pack. Only fetch: a gate is a client of the published
 * API (docs/domain.md §4.1), nothing of the service's code.
 */

export interface GateAuth {
  userId: number;
  checkerName: string;
  accessToken: string;
  refreshToken: string;
}

/** An answer with errcode ≠ 0: the service refused, and said why. */
export class ServiceError extends Error {
  constructor(
    readonly errcode: number,
    readonly errmsg: string,
    readonly path: string,
  ) {
    super(`${path}: ${errcode} ${errmsg}`);
  }
}

export type Fetch = typeof fetch;

interface Envelope<T> {
  errcode: number;
  errmsg: string;
  data?: T;
}

const UNAUTHORIZED = 401;

export class GateClient {
  constructor(
    readonly baseUrl: string,
    /** the tokens; replaced when they are refreshed, so the caller persists this object's `auth` */
    public auth: GateAuth | null,
    private readonly fetchFn: Fetch = fetch,
  ) {}

  private url(path: string): string {
    return `${this.baseUrl.replace(/\/+$/, '')}/app-api${path}`;
  }

  private send(path: string, body: unknown, token: string | null, accept = 'application/json') {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept };
    if (token) headers.authorization = `Bearer ${token}`;
    return this.fetchFn(this.url(path), { method: 'POST', headers, body: JSON.stringify(body ?? {}) });
  }

  /** The answer: a stream when it is not JSON, else its parsed envelope. */
  private async answer(path: string, res: Response): Promise<Response | Envelope<unknown>> {
    if (!(res.headers.get('content-type') ?? '').startsWith('application/json')) {
      if (res.ok) return res;
      throw new Error(`${path}: HTTP ${res.status} ${res.headers.get('content-type') ?? ''}`);
    }
    const text = await res.text();
    try {
      return JSON.parse(text) as Envelope<unknown>;
    } catch {
      throw new Error(`${path}: HTTP ${res.status}, not an envelope: ${text.slice(0, 200)}`);
    }
  }

  private static data<T>(path: string, e: Envelope<unknown>): T {
    if (e.errcode !== 0) throw new ServiceError(e.errcode, e.errmsg, path);
    return e.data as T;
  }

  /**
   * POST with the verifier's token. The service answers HTTP 200 with errcode 401 for an expired
   * access token (docs/errors.md): the token is refreshed once and the call made again.
   */
  private async authed(path: string, body: unknown, accept?: string): Promise<Response | Envelope<unknown>> {
    if (!this.auth) throw new Error('not logged in: run `pack` with --mobile and --password first');
    const first = await this.answer(path, await this.send(path, body, this.auth.accessToken, accept));
    if (first instanceof Response || first.errcode !== UNAUTHORIZED) return first;
    await this.refresh();
    return this.answer(path, await this.send(path, body, this.auth.accessToken, accept));
  }

  private async publicCall<T>(path: string, body: unknown): Promise<T> {
    const a = await this.answer(path, await this.send(path, body, null));
    if (a instanceof Response) throw new Error(`${path}: not a JSON answer`);
    return GateClient.data<T>(path, a);
  }

  async login(mobile: string, password: string): Promise<GateAuth> {
    const path = '/auth/checkerLogin';
    const data = await this.publicCall<GateAuth>(path, { mobile, password });
    this.auth = {
      userId: data.userId,
      checkerName: data.checkerName,
      accessToken: data.accessToken,
      refreshToken: data.refreshToken,
    };
    return this.auth;
  }

  private async refresh(): Promise<void> {
    const path = '/auth/refreshToken';
    const data = await this.publicCall<{ accessToken: string; refreshToken: string }>(path, {
      refreshToken: this.auth!.refreshToken,
    });
    this.auth = { ...this.auth!, accessToken: data.accessToken, refreshToken: data.refreshToken };
  }

  /** A JSON operation of the app channel, answered as its `data`. */
  async post<T>(path: string, body: unknown = {}): Promise<T> {
    const a = await this.authed(path, body);
    if (a instanceof Response) throw new Error(`${path}: not a JSON answer`);
    return GateClient.data<T>(path, a);
  }

  /** The pack's answer as a stream of NDJSON (fetch undoes the gzip); a refusal throws its envelope. */
  async packStream(since: string | null): Promise<ReadableStream<Uint8Array>> {
    const path = '/checker/offlinePack';
    const a = await this.authed(path, since ? { since } : {}, 'application/x-ndjson, application/json');
    if (!(a instanceof Response)) {
      GateClient.data(path, a); // throws the refusal
      throw new Error(`${path}: a JSON answer where a pack was expected`);
    }
    if (!a.body) throw new Error(`${path}: an empty answer`);
    return a.body;
  }
}
