import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ENV_NAMES, envSchemaOf, type EnvName } from '../src/config-schema.js';

// Writes the configuration tables of README.md (the commonly set variables) and docs/operations.md
// (all of them) from the one schema of the environment, src/config-schema.ts, between the marker
// lines below. `--check` writes nothing and exits 1 when a file differs from what it would write.
//
//   node --import tsx scripts/config-docs.ts [--check]

export const BEGIN = '<!-- config-table:begin -->';
export const END = '<!-- config-table:end -->';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;

export interface Target {
  /** relative to the repository root */
  file: string;
  /** only the variables the schema marks `common` */
  commonOnly: boolean;
}

export const TARGETS: Target[] = [
  { file: 'README.md', commonOnly: true },
  { file: 'docs/operations.md', commonOnly: false },
];

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function defaultCell(name: EnvName): string {
  const schema = envSchemaOf(name);
  if (!('default' in schema)) return schema.unset ?? 'unset';
  const value = schema.default;
  if (value === false) return 'off';
  if (typeof value === 'number' && name.endsWith('_BYTES') && value % MiB === 0)
    return `\`${value}\` (${value / MiB} MiB)`;
  return `\`${String(value)}\``;
}

function allowedCell(name: EnvName): string {
  const schema = envSchemaOf(name);
  if (schema.allowed) return schema.allowed;
  if (schema.enum) return schema.enum.map((v) => `\`${v}\``).join(', ');
  if (schema.protocols) return `${schema.protocols.map((p) => `\`${p}//\``).join(' or ')} URL`;
  switch (schema.type) {
    case 'boolean':
      return '`1`/`0`, `true`/`false`, `yes`/`no`';
    case 'integer':
      return schema.maximum === undefined ? `≥ ${schema.minimum}` : `${schema.minimum}–${schema.maximum}`;
    default:
      return 'any';
  }
}

function descriptionCell(name: EnvName): string {
  const schema = envSchemaOf(name);
  return schema.readBy ? `${schema.description}; read by ${schema.readBy}` : String(schema.description);
}

/** The generated text between the markers of one file. */
export function configTable(target: Target): string {
  const names = ENV_NAMES.filter((name) => !target.commonOnly || envSchemaOf(name).common);
  const lines = [
    '<!-- generated from src/config-schema.ts by scripts/config-docs.ts: edit the schema, not this table -->',
    '',
    '| variable | default | allowed | meaning |',
    '|---|---|---|---|',
    ...names.map(
      (name) =>
        `| \`${name}\` | ${cell(defaultCell(name))} | ${cell(allowedCell(name))} | ${cell(descriptionCell(name))} |`,
    ),
  ];
  if (target.commonOnly) {
    lines.push(
      '',
      `The commonly set ${names.length} of ${ENV_NAMES.length}; every variable is in docs/operations.md §9.`,
    );
  }
  return lines.join('\n');
}

/** `text` with what lies between its (single pair of) marker lines replaced by `table`. */
export function withTable(text: string, table: string, file: string): string {
  const lines = text.split('\n');
  const begin = lines.indexOf(BEGIN);
  const end = lines.indexOf(END);
  if (begin < 0 || end < begin || lines.lastIndexOf(BEGIN) !== begin || lines.lastIndexOf(END) !== end) {
    throw new Error(`${file} must hold one line ${BEGIN} followed by one line ${END}`);
  }
  return [...lines.slice(0, begin + 1), table, ...lines.slice(end)].join('\n');
}

/** Each target file as it is and as this script would write it. */
export function renderTargets(root: string = ROOT): { file: string; current: string; expected: string }[] {
  return TARGETS.map((target) => {
    const current = readFileSync(path.join(root, target.file), 'utf8');
    return { file: target.file, current, expected: withTable(current, configTable(target), target.file) };
  });
}

function main(args: string[]): number {
  const check = args.includes('--check');
  let stale = 0;
  for (const { file, current, expected } of renderTargets()) {
    if (current === expected) continue;
    if (check) {
      process.stderr.write(
        `${file}: the configuration table differs from src/config-schema.ts (run node --import tsx scripts/config-docs.ts)\n`,
      );
      stale++;
    } else {
      writeFileSync(path.join(ROOT, file), expected);
      process.stdout.write(`${file}: configuration table written\n`);
    }
  }
  return stale > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
