/**
 * The HTTP load of bench/checkin.bench.ts, run in a process of its own so the service's event loop
 * serves requests only (as behind a real gate, where the scanners are other machines). autocannon
 * sends every scan with the next card number. Reads its job from argv[2] (JSON), prints
 * {done, ok, seconds} on stdout.
 */
import autocannon from 'autocannon';

interface Job {
  url: string;
  token: string;
  skuId: number;
  /** when given, the scans go round these spots instead (bench/capacity.bench.ts), naming no gate */
  skuIds?: number[];
  entranceId: number;
  /** card numbers are cardPrefix + the serial in 9 digits */
  cardPrefix: string;
  /** card serials firstCard … firstCard+maxCards-1 are this run's */
  firstCard: number;
  maxCards: number;
  connections: number;
  seconds: number;
}

interface Request {
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest(req: Request): Request;
  onResponse(status: number, body: string): void;
}

const job = JSON.parse(process.argv[2]) as Job;
let next = 0;
let ok = 0;
const request: Request = {
  method: 'POST',
  path: '/app-api/checker/addCheckerConsumeRecord',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${job.token}` },
  setupRequest(req) {
    if (next >= job.maxCards) throw new Error('out of bench cards');
    const serial = job.firstCard + next++;
    return {
      ...req,
      body: JSON.stringify({
        ...(job.skuIds
          ? { skuId: job.skuIds[serial % job.skuIds.length] }
          : { skuId: job.skuId, entranceId: job.entranceId }),
        cardNumber: `${job.cardPrefix}${String(serial).padStart(9, '0')}`,
        nonce: `scan-${serial}`,
      }),
    };
  },
  onResponse(_status, body) {
    if (body.startsWith('{"errcode":0,')) ok++;
  },
};
const started = performance.now();
const result = await autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.seconds,
  requests: [request],
} as unknown as Parameters<typeof autocannon>[0]);
process.stdout.write(
  JSON.stringify({ done: result.requests.total, ok, seconds: (performance.now() - started) / 1000 }),
);
