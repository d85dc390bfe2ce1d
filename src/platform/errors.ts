/**
 * Typed domain errors. Services throw these; the one error handler turns them into the envelope.
 * `errcode` is what clients read; `httpStatus` stays 200 for every handled outcome (DESIGN.md §5.12).
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

export const ErrorCode = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  LOCKED: 423,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export const badRequest = (message: string) => new AppError(ErrorCode.BAD_REQUEST, message);
export const unauthorized = (message = 'not logged in or the login has expired') => new AppError(ErrorCode.UNAUTHORIZED, message);
export const forbidden = (message = 'no permission for this operation') => new AppError(ErrorCode.FORBIDDEN, message);
export const notFound = (what: string) => new AppError(ErrorCode.NOT_FOUND, `${what} not found`);
export const conflict = (message: string) => new AppError(ErrorCode.CONFLICT, message);
export const tooManyRequests = (message = 'too many requests, please try again later') => new AppError(ErrorCode.TOO_MANY_REQUESTS, message);
