import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Answers given while the request body is still arriving (413 for a body over the limit, 401 decided
 * before the body is read …) must reach the client. Node answers them and then closes the socket
 * while the client is still sending: the client's next write meets a reset (EPIPE/ECONNRESET), and
 * most HTTP clients, which read only once they have sent everything, never see the answer.
 *
 * Instead the connection is closed in stages (RFC 9112 §9.6): the answer says `connection: close`,
 * our side of the socket is shut once the answer is flushed, and the rest of the body is read and
 * dropped until the client has sent it all or closed its side, so it gets to read the answer. The
 * draining is bounded, so a client that keeps sending cannot hold the connection forever.
 */
export interface LingerLimits {
  /** Body bytes read and dropped after the answer before the connection is cut anyway. */
  bytes: number;
  /** Time allowed for the client to finish sending after the answer. */
  ms: number;
}

export const DEFAULT_LINGER: LingerLimits = { bytes: 64 * 1024 * 1024, ms: 30_000 };

type LingeringSocket = Socket & { destroySoon?: () => void };
const METER_INTERVAL_MS = 50;

function closeInStages(socket: LingeringSocket, req: IncomingMessage, limits: LingerLimits, open: Set<Socket>): void {
  // Node closes a `connection: close` socket through destroySoon once the answer is written: end,
  // then destroy as soon as the end is flushed. The destroy is what resets a client still sending.
  socket.destroySoon = function lingeringClose(this: LingeringSocket) {
    if (this.writable) this.end();
    // Node feeds the socket straight to its HTTP parser, which drops a body nobody reads without a
    // 'data' event on anything, so the bytes are measured on the socket itself.
    const readBefore = this.bytesRead;
    const done = () => {
      clearTimeout(deadline);
      clearInterval(meter);
      open.delete(this);
      this.destroy();
    };
    const deadline = setTimeout(done, limits.ms);
    const meter = setInterval(() => {
      if (this.bytesRead - readBefore > limits.bytes) done();
    }, METER_INTERVAL_MS);
    deadline.unref();
    meter.unref();
    open.add(this);
    // the client sent the whole body, or closed its side: nothing more is coming
    req.once('end', done);
    this.once('end', done);
    this.once('close', () => {
      clearTimeout(deadline);
      clearInterval(meter);
      open.delete(this);
    });
    // nothing flows into a paused request; reading is what keeps the client's writes from failing
    req.resume();
    if (req.complete) done();
  };
}

export function registerEarlyAnswerLinger(app: FastifyInstance, limits: LingerLimits = DEFAULT_LINGER): void {
  const open = new Set<Socket>();
  // A callback hook, not an async one: it runs on every answer and never waits for anything.
  app.addHook('onSend', (request, reply, payload, done) => {
    const req = request.raw;
    const socket = req.socket as LingeringSocket | null;
    // `complete` is false only on a real connection whose request body has not fully arrived.
    if (req.complete === false && socket && typeof socket.destroySoon === 'function') {
      reply.header('connection', 'close');
      closeInStages(socket, req, limits, open);
    }
    done(null, payload);
  });
  // A shutdown does not wait for clients still sending bodies nobody will read.
  app.addHook('preClose', async () => {
    for (const socket of open) socket.destroy();
    open.clear();
  });
}
