import { connect, type Socket } from 'node:net';

export interface RawOutcome {
  /** Everything the server sent, as text. */
  response: string;
  /** The socket error the client saw while sending or reading, if any (EPIPE, ECONNRESET …). */
  error: string | null;
  /** Body bytes the client managed to hand to its socket before it stopped. */
  sent: number;
}

/**
 * Sends one HTTP/1.1 request over a plain TCP socket, the body in `chunk`-sized writes (waiting for
 * each to drain, so a large body trickles rather than sits in a buffer), and reads whatever comes back
 * until the server closes. With `readAfterSending` it reads nothing until the whole body is sent, as
 * many HTTP clients do, and gives up at the first socket error as they do: a server that closes while
 * such a client still sends leaves it with a reset and without the answer.
 */
export function rawRequest(opts: {
  port: number;
  path: string;
  headers: Record<string, string>;
  bodyBytes: number;
  chunk?: number;
  chunked?: boolean;
  readAfterSending?: boolean;
  /** A pause after each chunk, for a sender slower than the loopback. */
  pauseMs?: number;
  timeoutMs?: number;
}): Promise<RawOutcome> {
  const chunkSize = opts.chunk ?? 64 * 1024;
  return new Promise((resolve) => {
    // Half-open allowed: like curl or a Java client, it keeps sending after the server's FIN.
    const socket = connect({ port: opts.port, host: '127.0.0.1', allowHalfOpen: true });
    const received: Buffer[] = [];
    let error: string | null = null;
    let sent = 0;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ response: Buffer.concat(received).toString('utf8'), error, sent });
    };
    const timer = setTimeout(() => {
      error ??= 'timeout';
      finish();
    }, opts.timeoutMs ?? 60_000);
    const read = () => socket.on('data', (d) => received.push(d));
    if (!opts.readAfterSending) read();
    else socket.pause();
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
      finish();
    });
    // The server's FIN ends its answer, as it does for any client that reads to the end.
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('connect', async () => {
      const head = [
        `POST ${opts.path} HTTP/1.1`,
        'Host: 127.0.0.1',
        ...Object.entries(opts.headers).map(([k, v]) => `${k}: ${v}`),
      ];
      head.push(opts.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${opts.bodyBytes}`);
      socket.write(head.join('\r\n') + '\r\n\r\n');
      const piece = Buffer.alloc(chunkSize, 'a');
      piece.write('{"pad":"');
      while (sent < opts.bodyBytes && !socket.destroyed && !finished) {
        const n = Math.min(chunkSize, opts.bodyBytes - sent);
        const data = n === chunkSize ? piece : piece.subarray(0, n);
        const ok = socket.write(
          opts.chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data,
        );
        sent += n;
        if (!ok) await drainedOrClosed(socket);
        if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
      }
      if (opts.chunked && !socket.destroyed) socket.write('0\r\n\r\n');
      // Stop sending, without closing our side (a half-close can abort a request still being served),
      // and read until the server closes (or the timeout).
      if (socket.destroyed || finished || !opts.readAfterSending) return;
      read();
      socket.resume();
    });
  });
}

/** Resolves when the socket can take more, or is gone. */
export function drainedOrClosed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/** The JSON body of the first response in a raw exchange, or null when none arrived whole. */
export function firstJsonBody(response: string): unknown {
  const split = response.indexOf('\r\n\r\n');
  if (!response.startsWith('HTTP/1.1 ') || split < 0) return null;
  const head = response.slice(0, split);
  let body = response.slice(split + 4);
  if (/transfer-encoding: chunked/i.test(head)) {
    const size = parseInt(body, 16);
    body = body.slice(body.indexOf('\r\n') + 2).slice(0, size);
  } else {
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? body.length);
    body = body.slice(0, length);
  }
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
