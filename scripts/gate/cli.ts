import { parseArgs } from 'node:util';
import { zonedDateTime } from './clock.js';
import { GateClient, ServiceError, type Fetch } from './client.js';
import { refreshPack, scanOffline, syncQueue, type RefreshOutcome } from './gate.js';
import { PackRejected } from './pack.js';
import { loadState, newState, queued, saveState, type GateState, type ScanAnswer } from './state.js';

/** The commands of `npm run gate -- …` (scripts/offline-gate.ts); output through `io.out`, so tests read it. */

export const USAGE = [
  'usage:',
  '  npm run gate -- pack --url http://127.0.0.1:8080 --mobile M --password P [--state gate.json]',
  '  npm run gate -- scan [--state gate.json] --sku ID [--entrance ID] CARDNUMBER…',
  '  npm run gate -- sync [--state gate.json]',
].join('\n');

export interface GateIo {
  out: (line: string) => void;
  fetch?: Fetch;
  /** the gate's clock (tests) */
  now?: () => Date;
}

const CONFLICT_KINDS: Record<number, string> = { 1: 'daily limit', 2: 'day capacity', 3: 'slot capacity' };

class UsageError extends Error {}

function positiveInt(name: string, v: string | undefined): number | null {
  if (v === undefined) return null;
  if (!/^[1-9][0-9]{0,15}$/.test(v)) throw new UsageError(`--${name} must be a positive integer, not ${v}`);
  return Number(v);
}

function kb(bytes: number): string {
  return bytes < 10_000 ? `${bytes} B` : `${(bytes / 1000).toFixed(1)} kB`;
}

export function describeAnswer(a: ScanAnswer): string {
  const conflicts = (a.conflicts ?? [])
    .map((c) => `${CONFLICT_KINDS[c.kind] ?? `kind ${c.kind}`} ${c.limit}, count ${c.count}`)
    .join('; ');
  switch (a.result) {
    case 'recorded':
      return `recorded #${a.id}`;
    case 'conflict':
      return `conflict #${a.id} (recorded; ${conflicts})`;
    case 'refused':
      return `refused ${a.errcode} ${a.errmsg}`;
    case 'duplicate':
      return `duplicate, first answer: ${a.id !== undefined ? `#${a.id}${conflicts ? ` with conflict (${conflicts})` : ''}` : `refused ${a.errcode} ${a.errmsg}`}`;
  }
}

function describeRefresh(state: GateState, r: RefreshOutcome): string[] {
  const p = state.pack!;
  const when = (ms: number) => zonedDateTime(new Date(ms), p.timeZone);
  const spots = p.spots.map(
    (s) =>
      `  spot ${s.skuId} ${s.name}: gates ${s.allGates ? 'all' : 'named'} [${s.gates.map((g) => `${g.id} ${g.name}`).join(', ')}]`,
  );
  return [
    r.delta
      ? `delta pack: ${r.cards} cards, ${r.tombstones} tombstones (${kb(r.bytes)}); ${r.heldCards} cards held`
      : `whole pack${r.reason ? ` (${r.reason})` : ''}: ${r.cards} cards (${kb(r.bytes)})`,
    `made ${when(p.madeAt)}, expires ${when(p.expiresAt)} (${p.timeZone}), day ${p.day}, key ${p.keyId}, ${p.spots.length} spots`,
    ...spots,
  ];
}

async function pack(state: GateState, client: GateClient, v: Record<string, unknown>, io: GateIo) {
  if (typeof v.mobile === 'string' || typeof v.password === 'string') {
    if (typeof v.mobile !== 'string' || typeof v.password !== 'string')
      throw new UsageError('--mobile and --password go together');
    const auth = await client.login(v.mobile, v.password);
    io.out(`logged in as ${auth.checkerName} (verifier ${auth.userId})`);
  }
  const r = await refreshPack(state, client, () => (io.now?.() ?? new Date()).getTime());
  state.auth = client.auth;
  describeRefresh(state, r).forEach((l) => io.out(l));
}

function scan(state: GateState, v: Record<string, unknown>, cards: string[], io: GateIo) {
  const skuId = positiveInt('sku', v.sku as string | undefined);
  if (skuId === null) throw new UsageError('scan needs --sku');
  if (cards.length === 0) throw new UsageError('scan needs one or more card numbers');
  const entranceId = positiveInt('entrance', v.entrance as string | undefined);
  for (const cardNumber of cards) {
    const d = scanOffline(state, { skuId, entranceId, cardNumber, consumeNum: 1, at: io.now?.() ?? new Date() });
    io.out(
      d.admit
        ? `${cardNumber}  admit   ${d.holder ?? '-'}, entry ${d.used + 1} of ${d.limit} today, queued ${d.nonce}`
        : `${cardNumber}  refuse  ${d.code ?? '-'} ${d.rule}: ${d.reason}`,
    );
  }
  io.out(`${queued(state).length} scans queued for upload`);
}

async function sync(state: GateState, client: GateClient, persist: () => void, io: GateIo): Promise<number> {
  const todo = queued(state).length;
  const r = await syncQueue(state, client, () => {
    state.auth = client.auth;
    persist();
  });
  io.out(`uploaded ${r.answered.length} of ${todo} queued scans`);
  for (const { scan: s, answer } of r.answered)
    io.out(`${s.nonce}  ${s.cardNumber}  ${s.checkTime}  ${describeAnswer(answer)}`);
  if (r.error) io.out(`upload stopped: ${r.error.message}; ${r.unanswered} scans stay queued for the next sync`);
  try {
    const p = await refreshPack(state, client, () => (io.now?.() ?? new Date()).getTime());
    state.auth = client.auth;
    describeRefresh(state, p).forEach((l) => io.out(l));
  } catch (e) {
    io.out(`pack not refreshed: ${(e as Error).message}`);
    return 1;
  }
  return r.error ? 1 : 0;
}

/** Runs one command; answers the exit code. */
export async function run(argv: string[], io: GateIo): Promise<number> {
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        mobile: { type: 'string' },
        password: { type: 'string' },
        state: { type: 'string', default: 'gate.json' },
        sku: { type: 'string' },
        entrance: { type: 'string' },
      },
    }));
  } catch (e) {
    io.out(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = positionals;
  const file = values.state as string;
  try {
    let state = loadState(file);
    if (!state) {
      if (command !== 'pack' || typeof values.url !== 'string')
        throw new UsageError(`no state file ${file}: start with \`pack --url …\``);
      state = newState(values.url);
    } else if (typeof values.url === 'string') state.url = values.url;
    const persist = () => saveState(file, state);
    const client = new GateClient(state.url, state.auth, io.fetch);
    let code = 0;
    switch (command) {
      case 'pack':
        await pack(state, client, values, io);
        break;
      case 'scan':
        scan(state, values, rest, io);
        break;
      case 'sync':
        code = await sync(state, client, persist, io);
        break;
      default:
        throw new UsageError(command ? `unknown command ${command}` : 'no command');
    }
    persist();
    return code;
  } catch (e) {
    if (e instanceof UsageError) io.out(`${e.message}\n${USAGE}`);
    else if (e instanceof ServiceError || e instanceof PackRejected) io.out(`refused: ${e.message}`);
    else io.out(`failed: ${(e as Error).message}`);
    return e instanceof UsageError ? 2 : 1;
  }
}
