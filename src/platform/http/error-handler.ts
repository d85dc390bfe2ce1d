import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../errors.js';
import { validationMessage } from './validation-message.js';

export interface ErrorAnswer {
  httpStatus: number;
  errcode: number;
  errmsg: string;
}

// Connection-level failures of PostgreSQL or Redis: the dependency is down, not the request wrong.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P02', '57P03', '53300']);

function isUnavailable(err: { code?: unknown; message?: unknown }): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  if (UNAVAILABLE_CODES.has(code) || code.startsWith('08')) return true;
  const msg = typeof err.message === 'string' ? err.message : '';
  return /Connection terminated|Connection is closed|connect ECONNREFUSED|MaxRetriesPerRequest|Stream isn't writeable/i.test(msg);
}

/** Maps anything thrown to the envelope fields. Only AppError and validation messages reach clients verbatim. */
export function toErrorAnswer(err: unknown): ErrorAnswer {
  if (err instanceof AppError) return { httpStatus: err.httpStatus, errcode: err.errcode, errmsg: err.message };
  const e = (err ?? {}) as FastifyError & { validationContext?: string; code?: string };
  if (Array.isArray(e.validation)) {
    return { httpStatus: 200, errcode: ErrorCode.BAD_REQUEST, errmsg: validationMessage(e.validation as never, e.validationContext ?? 'body') };
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { httpStatus: 200, errcode: ErrorCode.BAD_REQUEST, errmsg: 'unsupported content type: send application/json' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { httpStatus: 200, errcode: ErrorCode.PAYLOAD_TOO_LARGE, errmsg: 'request body too large' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { httpStatus: 200, errcode: ErrorCode.BAD_REQUEST, errmsg: 'malformed request body' };
    case '23505':
      return { httpStatus: 200, errcode: ErrorCode.CONFLICT, errmsg: 'a record with the same unique value already exists' };
    case '23503':
      return { httpStatus: 200, errcode: ErrorCode.CONFLICT, errmsg: 'the record is referenced by, or refers to, a record that does not allow this change' };
    case '40001':
    case '40P01':
      return { httpStatus: 200, errcode: ErrorCode.CONFLICT, errmsg: 'the record was changed concurrently, please retry' };
  }
  if (isUnavailable(e)) return { httpStatus: 503, errcode: ErrorCode.UNAVAILABLE, errmsg: 'service temporarily unavailable' };
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return { httpStatus: 200, errcode: ErrorCode.BAD_REQUEST, errmsg: 'bad request' };
  }
  return { httpStatus: 500, errcode: ErrorCode.INTERNAL, errmsg: 'internal server error' };
}

export function registerErrorHandling(app: FastifyInstance, onFailure: (req: FastifyRequest, answer: ErrorAnswer) => Promise<void>): void {
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const answer = toErrorAnswer(err);
    if (answer.errcode >= 500) req.log.error({ err }, 'request failed');
    else req.log.info({ errcode: answer.errcode, errmsg: answer.errmsg }, 'request refused');
    try {
      await onFailure(req, answer);
    } catch (logErr) {
      req.log.error({ err: logErr }, 'could not write the failure operation log');
    }
    // File routes set their own content type; an error is always the JSON envelope.
    reply.status(answer.httpStatus).type('application/json; charset=utf-8');
    reply.removeHeader('content-disposition');
    // Pre-serialised: the route's response schema describes success and would demand `data`.
    return JSON.stringify({ errcode: answer.errcode, errmsg: answer.errmsg });
  });
  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ errcode: ErrorCode.NOT_FOUND, errmsg: `no operation at ${req.method} ${req.url.split('?')[0]}` });
  });
}
