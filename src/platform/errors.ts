/**
 * Typed domain errors. Services throw these; the one error handler turns them into the envelope.
 * `errcode` is what clients read; `httpStatus` stays 200 for every handled outcome (docs/architecture.md §5.12).
 */
export class AppError extends Error {
  /** Details a client can act on (which rows of a batch failed), sent as the envelope's `data`. */
  declare readonly data?: unknown;

  constructor(
    readonly errcode: number,
    message: string,
    readonly httpStatus = 200,
    /** `cause` reaches the log, never the client */
    options?: { cause?: unknown; data?: unknown },
  ) {
    super(message, options);
    this.name = 'AppError';
    if (options?.data !== undefined) this.data = options.data;
  }
}

/** An errcode as the OpenAPI document lists it: its number, its name in code, and what it means. */
export interface Errcode {
  code: number;
  name: string;
  meaning: string;
}

/** A module's codes by name (`CheckinError.CARD_UNKNOWN`), as routes and modules declare what they answer. */
export type ErrcodeGroup = Readonly<Record<string, number>>;

const known = new Map<number, Errcode>();

/**
 * Declares errcodes with their meanings: answers the codes by name, and keeps each meaning for the
 * OpenAPI document, which lists every errcode an operation can answer (docs/errors.md).
 */
export function errcodes<const T extends Record<string, readonly [code: number, meaning: string]>>(
  defs: T,
): { readonly [K in keyof T]: T[K][0] } {
  const out: Record<string, number> = {};
  for (const [name, [code, meaning]] of Object.entries(defs)) {
    const had = known.get(code);
    if (had && had.name !== name) throw new Error(`errcode ${code} is declared twice, as ${had.name} and as ${name}`);
    known.set(code, { code, name, meaning });
    out[name] = code;
  }
  return Object.freeze(out) as { readonly [K in keyof T]: T[K][0] };
}

/** The declaration of a code (undefined for a code never declared with `errcodes`). */
export const errcodeInfo = (code: number): Errcode | undefined => known.get(code);

/** The common codes (docs/errors.md); the module ranges 1_0MM_NNN_NNN hold the rest. */
export const ErrorCode = errcodes({
  BAD_REQUEST: [
    400,
    'bad request: a field missing or invalid (errmsg names it), a malformed body, an unsupported content type',
  ],
  UNAUTHORIZED: [
    401,
    'not logged in: no token, an invalid or expired one, one of another channel or account kind, or a bad open-channel signature',
  ],
  FORBIDDEN: [403, 'no permission for the operation, or the record belongs to another merchant or shop'],
  NOT_FOUND: [404, 'the record (or the path) does not exist'],
  CONFLICT: [
    409,
    'state conflict: a duplicate, a record still referenced, a move from the wrong status, a concurrent change',
  ],
  PAYLOAD_TOO_LARGE: [413, 'the body or an uploaded file is larger than the limit'],
  LOCKED: [423, 'too many failed logins for this account from this address: locked for a while'],
  TOO_MANY_REQUESTS: [429, 'rate limit reached, try again later'],
  INTERNAL: [500, 'unexpected server error (HTTP 500)'],
  UNAVAILABLE: [503, 'the database, the store or another dependency is unavailable'],
});

export const badRequest = (message: string) => new AppError(ErrorCode.BAD_REQUEST, message);
export const unauthorized = (message = 'not logged in or the login has expired') =>
  new AppError(ErrorCode.UNAUTHORIZED, message);
export const forbidden = (message = 'no permission for this operation') => new AppError(ErrorCode.FORBIDDEN, message);
export const notFound = (what: string) => new AppError(ErrorCode.NOT_FOUND, `${what} not found`);
export const conflict = (message: string) => new AppError(ErrorCode.CONFLICT, message);
export const tooManyRequests = (message = 'too many requests, please try again later') =>
  new AppError(ErrorCode.TOO_MANY_REQUESTS, message);
