import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../errors.js';
import { validationMessage } from './validation-message.js';
import { isPgTimeout } from '../db/pg-errors.js';

/**
 * How an answer is logged: `info` for a request refused as the rules say, `warn` for a dependency
 * that failed or a value the database refused (worth a look, not a bug here), `error` only for the
 * unexpected, with its stack. Module errcodes (1_0MM_NNN_NNN) say nothing about severity.
 */
export type LogLevel = 'info' | 'warn' | 'error';

export interface ErrorAnswer {
  httpStatus: number;
  errcode: number;
  errmsg: string;
  log: LogLevel;
}

// Connection-level failures of PostgreSQL or Redis: the dependency is down, not the request wrong.
// 57014 (query_canceled) is the statement_timeout of DATABASE_QUERY_TIMEOUT_MS: an overloaded or
// stuck server, a 503 like the read timeout that takes over when the server cannot even cancel.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
]);
// PostgreSQL data exceptions that only a value sent by the client can cause (text too long, number out
// of range, a character the encoding refuses, malformed number or date text). The input guard refuses
// these before SQL; a schema that forgot a bound still answers 400, not 500.
const VALUE_REFUSED_CODES = new Set(['22001', '22003', '22007', '22008', '22021', '22P02', '22P05']);

function isUnavailable(err: { code?: unknown; message?: unknown }): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || isPgTimeout(err)) return true;
  const msg = typeof err.message === 'string' ? err.message : '';
  return /Connection terminated|Connection is closed|connect ECONNREFUSED|MaxRetriesPerRequest|Stream isn't writeable|Command timed out|is not queryable/i.test(
    msg,
  );
}

/** Maps anything thrown to the envelope fields. Only AppError and validation messages reach clients verbatim. */
const refused = (errcode: number, errmsg: string, log: LogLevel = 'info'): ErrorAnswer => ({
  httpStatus: 200,
  errcode,
  errmsg,
  log,
});

/** Maps anything thrown to the envelope fields. Only AppError and validation messages reach clients verbatim. */
export function toErrorAnswer(err: unknown): ErrorAnswer {
  if (err instanceof AppError) {
    const unexpected = err.errcode === ErrorCode.INTERNAL;
    const log = unexpected ? 'error' : err.errcode === ErrorCode.UNAVAILABLE || err.httpStatus >= 500 ? 'warn' : 'info';
    return { httpStatus: err.httpStatus, errcode: err.errcode, errmsg: err.message, log };
  }
  const e = (err ?? {}) as FastifyError & { validationContext?: string; code?: string };
  if (Array.isArray(e.validation))
    return refused(ErrorCode.BAD_REQUEST, validationMessage(e.validation as never, e.validationContext ?? 'body'));
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return refused(ErrorCode.BAD_REQUEST, 'unsupported content type: send application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return refused(ErrorCode.PAYLOAD_TOO_LARGE, 'request body too large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return refused(ErrorCode.BAD_REQUEST, 'malformed request body');
    case '23505':
      return refused(ErrorCode.CONFLICT, 'a record with the same unique value already exists');
    case '23503':
      return refused(
        ErrorCode.CONFLICT,
        'the record is referenced by, or refers to, a record that does not allow this change',
      );
    case '40001':
    case '40P01':
      return refused(ErrorCode.CONFLICT, 'the record was changed concurrently, please retry');
  }
  if (e.code && VALUE_REFUSED_CODES.has(e.code))
    return refused(ErrorCode.BAD_REQUEST, 'a value is too long, out of range or not valid for its field', 'warn');
  if (isUnavailable(e))
    return { httpStatus: 503, errcode: ErrorCode.UNAVAILABLE, errmsg: 'service temporarily unavailable', log: 'warn' };
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500)
    return refused(ErrorCode.BAD_REQUEST, 'bad request');
  return { httpStatus: 500, errcode: ErrorCode.INTERNAL, errmsg: 'internal server error', log: 'error' };
}

/** The gist of a handled failure for the log: what and where, without a stack. */
function summary(err: unknown): Record<string, unknown> | undefined {
  const cause = err instanceof AppError ? err.cause : err;
  if (!(cause instanceof Error) && (typeof cause !== 'object' || cause === null)) return undefined;
  const c = cause as { name?: unknown; code?: unknown; message?: unknown };
  return { type: c.name, code: c.code, message: c.message };
}

export function registerErrorHandling(
  app: FastifyInstance,
  onFailure: (req: FastifyRequest, answer: ErrorAnswer, err: unknown) => Promise<void>,
): void {
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const answer = toErrorAnswer(err);
    const fields = { errcode: answer.errcode, errmsg: answer.errmsg };
    if (answer.log === 'error') req.log.error({ ...fields, err }, 'request failed');
    else if (answer.log === 'warn')
      req.log.warn({ ...fields, cause: summary(err) }, 'request failed on a dependency or a refused value');
    else req.log.info(fields, 'request refused');
    try {
      await onFailure(req, answer, err);
    } catch (logErr) {
      req.log.error({ err: logErr }, 'could not write the failure operation log');
    }
    // File routes set their own content type; an error is always the JSON envelope.
    reply.status(answer.httpStatus).type('application/json; charset=utf-8');
    reply.removeHeader('content-disposition');
    // Pre-serialised: the route's response schema describes success and would demand `data`.
    const data = err instanceof AppError ? err.data : undefined;
    return JSON.stringify({ errcode: answer.errcode, errmsg: answer.errmsg, ...(data === undefined ? {} : { data }) });
  });
  app.setNotFoundHandler((req, reply) => {
    reply
      .status(404)
      .send({ errcode: ErrorCode.NOT_FOUND, errmsg: `no operation at ${req.method} ${req.url.split('?')[0]}` });
  });
}
