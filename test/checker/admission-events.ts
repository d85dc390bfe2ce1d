/** A client of the admission stream for tests: fetch with the token in the header, events parsed as the board parses them. */

export interface StreamEvent {
  name: string;
  data: any;
}

export interface OpenStream {
  status: number;
  contentType: string;
  /** the next event matching `match` (events before it are kept in `seen`), within `ms` */
  next(match?: (e: StreamEvent) => boolean, ms?: number): Promise<StreamEvent>;
  seen: StreamEvent[];
  /** true once the server ended the stream */
  ended(): boolean;
  close(): void;
}

export async function openStream(baseUrl: string, token: string, query = ''): Promise<OpenStream> {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/manage-api/checker/admissionStream${query}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  const seen: StreamEvent[] = [];
  const queue: StreamEvent[] = [];
  // (an object: the reader below is an immediately run function, whose analysis would pin the field to null)
  const wake: { waiter: (() => void) | null } = { waiter: null };
  let done = false;
  void (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const part = await reader.read();
        if (part.done) break;
        buffer += part.value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) name = line.slice(6).trim();
            else if (line.startsWith('data:')) data += line.slice(5).trim();
          }
          if (!data) continue;
          const e = { name, data: JSON.parse(data) };
          seen.push(e);
          queue.push(e);
          wake.waiter?.();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      wake.waiter?.();
    }
  })();
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    seen,
    ended: () => done,
    async next(match = () => true, ms = 8_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const i = queue.findIndex(match);
        if (i >= 0) return queue.splice(0, i + 1)[i];
        if (done) throw new Error(`the stream ended; events: ${JSON.stringify(seen)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching event within ${ms} ms; events: ${JSON.stringify(seen)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake.waiter = () => {
            clearTimeout(timer);
            wake.waiter = null;
            resolve();
          };
        });
      }
    },
    close: () => controller.abort(),
  };
}
