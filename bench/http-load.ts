/**
 * An autocannon run in a process of its own (argv[2]: JSON of url, body, headers, connections,
 * seconds), printing {rps, p99, errors, non2xx, timeouts} on stdout. Benches that measure a service
 * answering in their own process send their load from here: an autocannon worker thread in the
 * service's process shares its memory and allocator, and on two cores its socket writes showed as
 * the service's (a third of the service profile's samples in writev).
 */
import autocannon from 'autocannon';

interface Job { url: string; body: string; headers: Record<string, string>; connections: number; seconds: number }

const job = JSON.parse(process.argv[2]) as Job;
const r = await autocannon({ url: job.url, method: 'POST', body: job.body, headers: { 'content-type': 'application/json', ...job.headers }, connections: job.connections, duration: job.seconds });
process.stdout.write(JSON.stringify({ rps: r.requests.total / r.duration, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, timeouts: r.timeouts }));
