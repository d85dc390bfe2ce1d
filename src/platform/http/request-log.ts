import type { FastifyRequest } from 'fastify';

/**
 * Query values that are capabilities never reach the log: a file key alone fetches its file through
 * the token-free file route (/open-api/oss/file), face photos included.
 */
function urlForLog(url: string): string {
  return url.replace(/([?&]fileKey=)[^&#]*/gi, '$1…');
}

/** Fastify's request serializer, with the URL as urlForLog gives it. */
export function requestForLog(req: FastifyRequest) {
  return {
    method: req.method,
    url: urlForLog(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
