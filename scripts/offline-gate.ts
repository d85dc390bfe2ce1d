/**
 * npm run gate -- pack|scan|sync …: a reference offline gate (docs/domain.md §4.1), a client of the
 * published API only. The commands are in scripts/gate/cli.ts, the gate's logic in scripts/gate/.
 */
import { run } from './gate/cli.js';

process.exitCode = await run(process.argv.slice(2), { out: (line) => console.log(line) });
