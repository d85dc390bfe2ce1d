/**
 * An autocannon run in a process of its own (argv[2]: JSON of url, body, headers, connections,
 * seconds, and optionally bodiesFile), printing {rps, p99, errors, non2xx, timeouts} on stdout.
 * Benches that measure a service answering in their own process send their load from here: an
 * autocannon worker thread in the service's process shares its memory and allocator, and on two cores
 * its socket writes showed as the service's (a third of the service profile's samples in writev).
 *
 * With `bodiesFile` (a JSON array of bodies) the requests take its bodies instead of `body`:
 * a read of one key over and over measures a cache line, not the reads operators make.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

interface Job {
  url: string;
  body: string;
  bodiesFile?: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
}

const job = JSON.parse(process.argv[2]) as Job;
const bodies = job.bodiesFile ? (JSON.parse(readFileSync(job.bodiesFile, 'utf8')) as string[]) : null;
// Each connection sends a share of the bodies of its own, built once (a body set per request, with
// setupRequest, halved the rate autocannon itself could send), so connections do not ask for the same
// key at the same moment.
let client = 0;
const share = bodies ? Math.max(1, Math.floor(bodies.length / job.connections)) : 0;
const r = await autocannon({
  url: job.url,
  method: 'POST',
  body: job.body,
  headers: { 'content-type': 'application/json', ...job.headers },
  connections: job.connections,
  duration: job.seconds,
  ...(bodies
    ? {
        setupClient: (c: { setRequests(r: Array<{ body: string }>): void }) => {
          const from = (client++ * share) % bodies.length;
          c.setRequests(bodies.slice(from, from + share).map((body) => ({ body })));
        },
      }
    : {}),
});
process.stdout.write(
  JSON.stringify({
    rps: r.requests.total / r.duration,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    timeouts: r.timeouts,
  }),
);
