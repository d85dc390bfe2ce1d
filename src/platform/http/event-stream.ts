import type { FastifyReply } from 'fastify';
import type { FileDoc } from './routes.js';

export const EVENT_STREAM_CONTENT_TYPE = 'text/event-stream';

/** What an event-stream route answers, for the OpenAPI document (`file` of its route). */
export const EVENT_STREAM_FILE: FileDoc = {
  mediaTypes: [EVENT_STREAM_CONTENT_TYPE],
  description:
    'Server-sent events (UTF-8 text, `event:` and `data:` lines, `data` a JSON object), kept open; `:` comment lines are heartbeats',
};

/** Where a stream writes: named events with JSON data, and comments (heartbeats). */
export interface EventSink {
  event(name: string, data: unknown): void;
  comment(text: string): void;
  /** ends the stream from the server's side (shutdown) */
  end(): void;
}

export interface EventStreamSpec {
  /** Runs once the headers are sent: writes the first events and subscribes the sink to later ones. */
  start(sink: EventSink): void;
  /** Runs once when the stream ends, by the client going, the server ending it, or a failed write. */
  stop(): void;
  /** A heartbeat comment this often, so proxies and the client see the connection alive. */
  heartbeatMs: number;
}

/**
 * A server-sent events answer (docs/adr/0108-admission-stream-sse-over-fetch-one-poller.md). Handlers
 * return it after everything that can refuse has run (token, permission, input, scope, the stream
 * limit, the first read), so a refusal is still the JSON envelope; the route pipeline calls `send`,
 * which takes the reply over as the xlsx export does (export/xlsx-export.ts) and keeps the
 * connection open until the client goes or the server ends it.
 */
export class EventStream {
  private stopped = false;

  constructor(readonly spec: EventStreamSpec) {}

  /** Ends the stream before it was sent (the pipeline failed after the handler): frees what it holds. */
  discard(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.spec.stop();
  }

  async send(reply: FastifyReply): Promise<void> {
    reply.hijack();
    const res = reply.raw;
    if (res.destroyed || reply.request.raw.destroyed) {
      this.discard();
      return;
    }
    // The headers set on the reply so far (the security headers of every answer) go out with the stream.
    for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) res.setHeader(k, v);
    res.setHeader('content-type', `${EVENT_STREAM_CONTENT_TYPE}; charset=utf-8`);
    res.setHeader('cache-control', 'no-store');
    // nginx and similar proxies would otherwise hold the events back in their buffers
    res.setHeader('x-accel-buffering', 'no');
    // The connection ends with the stream: left open for reuse, a stream the server ends at shutdown
    // would hold the close until the keep-alive timeout.
    res.setHeader('connection', 'close');
    res.writeHead(200);
    res.flushHeaders();
    const finish = () => {
      clearInterval(heartbeat);
      this.discard();
    };
    const write = (text: string) => {
      if (this.stopped || res.destroyed || res.writableEnded) return;
      res.write(text);
    };
    const sink: EventSink = {
      event: (name, data) => write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`),
      comment: (text) => write(`: ${text.replace(/\n/g, ' ')}\n\n`),
      end: () => {
        finish();
        if (!res.writableEnded) res.end();
      },
    };
    const heartbeat = setInterval(() => sink.comment('heartbeat'), this.spec.heartbeatMs);
    heartbeat.unref();
    res.on('close', finish);
    res.on('error', finish);
    try {
      this.spec.start(sink);
    } catch (err) {
      reply.log.warn({ err }, 'event stream failed at its start');
      finish();
      res.destroy();
    }
  }
}
