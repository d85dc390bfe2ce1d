// `npm run new-module NAME` (docs/new-module.md): writes a new business module modelled on the sales
// slice (src/modules/sales, test/sales/sales.test.ts): its table and migration, its table types, the
// module's files behind its front door, its errcode range (docs/errors.md) and its test, and lists it
// among the modules. `npm run new-module -- --dry-run NAME` prints all of it and writes nothing.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

// ---------------------------------------------------------------------------------------------------
// Names

/**
 * Names a module cannot take: folders and files of the layout (a module named `platform` or `index`
 * would be mistaken for them), channel prefixes, and words PostgreSQL reserves (the table is named
 * after the module and the migration's DDL is raw SQL) or JavaScript reserves.
 */
const RESERVED = new Set([
  // the layout
  'app',
  'main',
  'config',
  'config-schema',
  'db',
  'index',
  'module',
  'modules',
  'platform',
  'seed',
  'src',
  'test',
  'tests',
  'helpers',
  'spec',
  'scripts',
  'docs',
  'adr',
  'dist',
  'bench',
  'data',
  'node-modules',
  'types',
  'tables',
  'migrations',
  'manage-api',
  'app-api',
  'mp-api',
  'open-api',
  'openapi',
  'system',
  // PostgreSQL reserved key words
  'all',
  'analyse',
  'analyze',
  'and',
  'any',
  'array',
  'as',
  'asc',
  'asymmetric',
  'authorization',
  'binary',
  'both',
  'case',
  'cast',
  'check',
  'collate',
  'collation',
  'column',
  'concurrently',
  'constraint',
  'create',
  'cross',
  'current-catalog',
  'current-date',
  'current-role',
  'current-schema',
  'current-time',
  'current-timestamp',
  'current-user',
  'default',
  'deferrable',
  'desc',
  'distinct',
  'do',
  'else',
  'end',
  'except',
  'false',
  'fetch',
  'for',
  'foreign',
  'freeze',
  'from',
  'full',
  'grant',
  'group',
  'having',
  'ilike',
  'in',
  'initially',
  'inner',
  'intersect',
  'into',
  'is',
  'isnull',
  'join',
  'lateral',
  'leading',
  'left',
  'like',
  'limit',
  'localtime',
  'localtimestamp',
  'natural',
  'not',
  'notnull',
  'null',
  'offset',
  'on',
  'only',
  'or',
  'order',
  'outer',
  'overlaps',
  'placing',
  'primary',
  'references',
  'returning',
  'right',
  'select',
  'session-user',
  'similar',
  'some',
  'symmetric',
  'system-user',
  'table',
  'tablesample',
  'then',
  'to',
  'trailing',
  'true',
  'union',
  'unique',
  'user',
  'using',
  'variadic',
  'verbose',
  'when',
  'where',
  'window',
  'with',
  // JavaScript reserved words
  'await',
  'break',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'delete',
  'enum',
  'export',
  'extends',
  'finally',
  'function',
  'if',
  'implements',
  'import',
  'instanceof',
  'interface',
  'let',
  'new',
  'package',
  'private',
  'protected',
  'public',
  'return',
  'static',
  'super',
  'switch',
  'this',
  'throw',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'yield',
]);

interface Names {
  /** gift-shop: the folder, file names, URL folder, permission prefix */
  kebab: string;
  /** gift_shop: the table */
  snake: string;
  /** giftShop */
  camel: string;
  /** GiftShop */
  pascal: string;
  /** gift shop: messages and labels */
  words: string;
}

const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

function namesOf(kebab: string): Names {
  const parts = kebab.split('-');
  return {
    kebab,
    snake: parts.join('_'),
    camel: parts[0] + parts.slice(1).map(cap).join(''),
    pascal: parts.map(cap).join(''),
    words: parts.join(' '),
  };
}

/** Why NAME cannot be a module's name, or null. */
function nameProblem(name: string): string | null {
  if (!/^[a-z][a-z0-9-]{1,30}$/.test(name))
    return 'a module name is 2–31 characters: a lower-case letter, then lower-case letters, digits and hyphens';
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name))
    return 'a module name is kebab-case: no leading, trailing or doubled hyphen';
  if (RESERVED.has(name))
    return `"${name}" is reserved (a folder of the layout, a channel, or a word PostgreSQL or JavaScript reserves)`;
  return null;
}

// ---------------------------------------------------------------------------------------------------
// The repository as it is

const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');

function filesUnder(rel: string, ext: string): string[] {
  const dir = path.join(root, rel);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/** Why the repository already has something of this module (its folder, table, URLs, names), or null. */
function clash(n: Names, targets: string[]): string | null {
  if (existsSync(path.join(root, 'src/modules', n.kebab)))
    return `module "${n.kebab}" exists (src/modules/${n.kebab}/)`;
  if (existsSync(path.join(root, 'test', n.kebab))) return `test/${n.kebab}/ exists: its tests are another topic's`;
  const dbTypes = read('src/db/types.ts');
  if (new RegExp(`^\\s+${n.snake}:`, 'm').test(dbTypes)) return `table "${n.snake}" exists (src/db/types.ts)`;
  const created = new RegExp(`create\\s+(unlogged\\s+)?table\\s+(if\\s+not\\s+exists\\s+)?"?${n.snake}"?[\\s(]`, 'i');
  for (const file of filesUnder('src/db/migrations', '.ts')) {
    if (created.test(read(file))) return `table "${n.snake}" is created by ${file}`;
  }
  for (const file of targets) if (existsSync(path.join(root, file))) return `${file} exists`;
  // What the module would add to the route table, the OpenAPI document and the shared files.
  const owned: Array<[RegExp, string]> = [
    [new RegExp(`['"\`]/${n.kebab}/`), `the URL folder /${n.kebab}/`],
    [new RegExp(`'${n.kebab}:`), `the permission prefix ${n.kebab}:`],
    [new RegExp(`title: '${n.pascal}(Response|AddRequest|UpdateRequest|PageRequest)'`), `a schema name ${n.pascal}…`],
    [new RegExp(`\\b${n.pascal}Table\\b`), `the table type ${n.pascal}Table`],
    [new RegExp(`\\b${n.camel}Module\\b`), `the name ${n.camel}Module`],
  ];
  for (const file of filesUnder('src', '.ts')) {
    const text = read(file);
    for (const [pattern, what] of owned) if (pattern.test(text)) return `${what} is taken already (${file})`;
  }
  return null;
}

/** The next free module range of docs/errors.md (1_0MM_000_000), past every code the sources use. */
function nextRange(errorsDoc: string): number {
  let top = 0;
  for (const m of errorsDoc.matchAll(/^\| 1_0(\d\d)_000_000 \|/gm)) top = Math.max(top, Number(m[1]));
  for (const file of filesUnder('src', '.ts')) {
    for (const m of read(file).matchAll(/\b1_0(\d\d)_\d{3}_\d{3}\b/g)) top = Math.max(top, Number(m[1]));
  }
  if (top === 0) throw new Error('docs/errors.md lists no module range (| 1_0MM_000_000 | …): cannot pick the next');
  if (top >= 99) throw new Error('no module range is left below 1_100_000_000');
  return top + 1;
}

/** The next migration: its number after the last, dated today (or the last one's date, so names stay in order). */
function nextMigration(n: Names): { id: string; alias: string } {
  let lastDate = '';
  let lastNumber = 0;
  for (const file of readdirSync(path.join(root, 'src/db/migrations'))) {
    const m = /^(\d{8})_(\d{4})_/.exec(file);
    if (!m) continue;
    if (m[1] > lastDate) lastDate = m[1];
    lastNumber = Math.max(lastNumber, Number(m[2]));
  }
  const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');
  const nnnn = String(lastNumber + 1).padStart(4, '0');
  return { id: `${today > lastDate ? today : lastDate}_${nnnn}_${n.snake}`, alias: `m${nnnn}` };
}

// ---------------------------------------------------------------------------------------------------
// Edits of the shared files: one line each, placed after the last of its kind

interface Edit {
  file: string;
  added: string[];
  text: string;
}

/** `line` inserted after the last line matching `pattern`. */
function afterLast(text: string, pattern: RegExp, line: string, file: string): string {
  const all = [...text.matchAll(new RegExp(pattern.source, 'gm'))];
  if (all.length === 0) throw new Error(`${file}: no line matches ${pattern}; add the module there by hand`);
  const last = all[all.length - 1];
  const at = last.index + last[0].length;
  return `${text.slice(0, at)}\n${line}${text.slice(at)}`;
}

/** `line` inserted as the last member of the block opened by `opening` and closed by `closing` at the start of a line. */
function lastInBlock(text: string, opening: string, closing: string, line: string, file: string): string {
  const start = text.indexOf(opening);
  const end = start < 0 ? -1 : text.indexOf(`\n${closing}`, start);
  if (end < 0) throw new Error(`${file}: "${opening}" … "${closing}" not found; add the module there by hand`);
  return `${text.slice(0, end + 1)}${line}\n${text.slice(end + 1)}`;
}

function edit(file: string, change: (text: string) => string, added: string[]): Edit {
  return { file, added, text: change(read(file)) };
}

// ---------------------------------------------------------------------------------------------------
// Templates, from the sales slice with the names put in

function templates(n: Names, range: number, migration: string): Record<string, string> {
  const { kebab, snake, camel, pascal, words } = n;
  const code = (k: number) => `1_0${String(range).padStart(2, '0')}_000_${String(k).padStart(3, '0')}`;
  const dir = `src/modules/${kebab}`;
  return {
    [`src/db/migrations/${migration}.ts`]: `import type { Kysely } from 'kysely';
import { AUDIT, runDdl } from './ddl.js';

/** The ${kebab} module's records: each belongs to a merchant or one of its shops, deleted logically. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, [
    \`create table ${snake} (
      id bigint generated by default as identity primary key,
      merchant_id bigint not null references merchant (id),
      shop_id bigint references shop (id),
      name varchar(64) not null,
      remark varchar(500),
      is_deleted boolean not null default false,
      \${AUDIT}
    )\`,
    // A name names one living record of a merchant; a deleted one frees its name.
    \`create unique index ${snake}_name_uq on ${snake} (merchant_id, name) where not is_deleted\`,
    \`create index ${snake}_scope_idx on ${snake} (merchant_id, shop_id, id) where not is_deleted\`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runDdl(db, ['drop table ${snake}']);
}
`,

    [`src/db/tables/${kebab}.ts`]: `import type { Generated } from 'kysely';
import type { Audit } from './common.js';

/** The ${kebab} module's table (migration ${migration}); it is their only writer (docs/architecture.md §4.3). */
export interface ${pascal}Table extends Audit {
  id: Generated<number>;
  merchant_id: number;
  shop_id: number | null;
  name: string;
  remark: string | null;
  is_deleted: Generated<boolean>;
}
`,

    [`${dir}/index.ts`]: `// The ${kebab} module's front door: the only file other modules import (docs/architecture.md §4).
export { ${camel}Module } from './${kebab}.module.js';
`,

    [`${dir}/${kebab}.module.ts`]: `import { defineModule } from '../../platform/module.js';
import { MerchantError } from '../merchant/index.js';
import { ${pascal}Error } from './${kebab}.errors.js';
import { ${camel}Routes } from './${kebab}.routes.js';
import { create${pascal}Service } from './${kebab}.service.js';

/** ${cap(words)}s of a merchant or its shops (written by \`npm run new-module\`, docs/new-module.md). */
export const ${camel}Module = defineModule({
  name: '${kebab}',
  errcodes: [${pascal}Error, MerchantError],
  routes: ({ db }) => ${camel}Routes(create${pascal}Service({ db })),
});
`,

    [`${dir}/${kebab}.errors.ts`]: `import { AppError, badRequest, errcodes, notFound } from '../../platform/errors.js';

/**
 * The ${kebab} module's refusals: the common codes (docs/architecture.md §6) where a client needs no
 * more, and codes of its range ${code(0)} (docs/errors.md) for those a client must tell apart.
 */
export const ${pascal}Error = errcodes({
  NAME_TAKEN: [${code(1)}, 'the name is already used by another ${words} of the merchant'],
});

export const ${camel}NotFound = () => notFound('${words}');
export const ownerRequired = () => badRequest('merchantId is required (or shopId, whose merchant it takes)');
export const nameTaken = (name: string) => new AppError(${pascal}Error.NAME_TAKEN, \`name "\${name}" is already used by another ${words} of the merchant\`);
`,

    [`${dir}/${kebab}.schemas.ts`]: `import { Type, type Static } from 'typebox';
import { Id, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** A ${words}: a record of a merchant, or of one of its shops. */
export const ${pascal}Response = Type.Object({
  id: Type.Integer({ description: '${words} id' }),
  merchantId: Type.Integer({ description: 'the merchant it belongs to' }),
  shopId: Nullable(Type.Integer({ description: 'the shop it belongs to; null for the merchant itself' })),
  name: Type.String(),
  remark: Nullable(Type.String()),
}, { title: '${pascal}Response' });
export type ${pascal} = Static<typeof ${pascal}Response>;

const Name = Type.String({ minLength: 1, maxLength: 64, description: 'unique among the living ${words}s of the merchant' });
// Absent or null keeps the stored remark on update; "" clears it.
const Remark = Opt(Type.String({ maxLength: 500 }));

export const ${pascal}AddRequest = Type.Object({
  name: Name,
  remark: Remark,
  merchantId: Opt(Type.Integer({ ...Id, description: "the owner (platform staff); a merchant or shop user's own by default" })),
  shopId: Opt(Type.Integer({ ...Id, description: 'one of the merchant\\'s shops as the owner; a shop user\\'s own by default' })),
}, { title: '${pascal}AddRequest' });
export type ${pascal}Add = Static<typeof ${pascal}AddRequest>;

export const ${pascal}UpdateRequest = Type.Object({ id: Id, name: Name, remark: Remark }, { title: '${pascal}UpdateRequest' });
export type ${pascal}Update = Static<typeof ${pascal}UpdateRequest>;

export const ${pascal}PageRequest = Type.Object({
  ...PageFields,
  name: Opt(Type.String({ maxLength: 64, description: 'found within the name' })),
  shopId: Opt(Id),
  keywords: Opt(Keywords),
}, { title: '${pascal}PageRequest' });
export type ${pascal}PageQuery = Static<typeof ${pascal}PageRequest>;
`,

    [`${dir}/${kebab}.routes.ts`]: `import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import type { ${pascal}Service } from './${kebab}.service.js';
import { ${pascal}AddRequest, ${pascal}PageRequest, ${pascal}Response, ${pascal}UpdateRequest } from './${kebab}.schemas.js';

const tags = ['${kebab}'];
const staff = { kinds: ['admin' as const] };
/** The operation log's module label (operate_log.module). */
const MODULE = '${words}';

/** Channel M: staff of the platform, a merchant or a shop, each within its scope. */
export function ${camel}Routes(svc: ${pascal}Service): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST', path: '/${kebab}/add${pascal}', channels: ['manage'], auth: staff, permission: '${kebab}:create',
      operation: [MODULE, 'add ${words}'], summary: 'Add a ${words} to your merchant or shop (platform staff name the owner)', tags,
      body: ${pascal}AddRequest, response: ${pascal}Response,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/${kebab}/update${pascal}', channels: ['manage'], auth: staff, permission: '${kebab}:update',
      operation: [MODULE, 'update ${words}'], summary: 'Update a ${words} (an absent remark is kept, "" clears it)', tags,
      body: ${pascal}UpdateRequest, response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST', path: '/${kebab}/delete${pascal}', channels: ['manage'], auth: staff, permission: '${kebab}:delete',
      operation: [MODULE, 'delete ${words}'], summary: 'Delete a ${words} (logical delete; its name becomes free)', tags,
      body: IdRequest, response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/${kebab}/get${pascal}', channels: ['manage'], auth: staff, permission: '${kebab}:query',
      summary: 'One ${words}', tags, body: IdRequest, response: ${pascal}Response,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST', path: '/${kebab}/query${pascal}Page', channels: ['manage'], auth: staff, permission: '${kebab}:query',
      summary: 'A page of ${words}s matching the filters, newest first (keywords in name and remark)', tags,
      body: ${pascal}PageRequest, response: PageInfo(${pascal}Response),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
`,

    [`${dir}/${kebab}.service.ts`]: `import { assertInScope, scopeOf } from '../../platform/auth/permissions.js';
import type { Db } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/executor.js';
import { isUniqueViolation } from '../../platform/db/pg-errors.js';
import { loggedTransaction } from '../../platform/db/transaction.js';
import type { AuthedContext } from '../../platform/http/context.js';
import type { Page } from '../../platform/http/paging.js';
import { optionalText } from '../../platform/text-input.js';
import { resolveRecordOwner } from '../merchant/index.js';
import { ${camel}NotFound, nameTaken, ownerRequired } from './${kebab}.errors.js';
import * as repo from './${kebab}.repository.js';
import type { ${pascal}, ${pascal}Add, ${pascal}PageQuery, ${pascal}Update } from './${kebab}.schemas.js';

/** ${cap(words)}s, scoped to the staff user's merchant or shop (docs/adr/0033-scoping-by-platform-merchant-and-shop.md). */
export function create${pascal}Service(deps: { db: Db }) {
  const { db } = deps;

  /** The insert or update, with a clash on the name's unique index answered with the module's code. */
  async function naming<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, repo.NAME_INDEX)) throw nameTaken(name);
      throw err;
    }
  }

  /** A living record the caller may act on (unknown → 404, another merchant's or shop's → 403), locked within a transaction. */
  async function visible(ctx: AuthedContext, id: number, trx?: Executor): Promise<${pascal}> {
    const found = await repo.find${pascal}(trx ?? db, id, trx !== undefined);
    if (!found) throw ${camel}NotFound();
    assertInScope(ctx.account, found);
    return found;
  }

  return {
    add(ctx: AuthedContext, input: ${pascal}Add): Promise<${pascal}> {
      return loggedTransaction(db, ctx, async (trx) => {
        // Within the caller's scope, under an enabled merchant (1_022_000_001).
        const owner = await resolveRecordOwner(trx, scopeOf(ctx.account), input, ownerRequired);
        const name = input.name.trim();
        return naming(name, () => repo.insert${pascal}(trx, { ...owner, name, remark: optionalText(input.remark, null) }, ctx.account.id));
      }, (created) => created.id);
    },

    async update(ctx: AuthedContext, input: ${pascal}Update): Promise<void> {
      await loggedTransaction(db, ctx, async (trx) => {
        const current = await visible(ctx, input.id, trx);
        const name = input.name.trim();
        await naming(name, () => repo.update${pascal}(trx, input.id, { name, remark: optionalText(input.remark, current.remark) }, ctx.account.id));
      }, () => input.id);
    },

    async remove(ctx: AuthedContext, id: number): Promise<void> {
      await loggedTransaction(db, ctx, async (trx) => {
        await visible(ctx, id, trx);
        await repo.softDelete${pascal}(trx, id, ctx.account.id);
      }, () => id);
    },

    get(ctx: AuthedContext, id: number): Promise<${pascal}> {
      return visible(ctx, id);
    },

    page(ctx: AuthedContext, query: ${pascal}PageQuery): Promise<Page<${pascal}>> {
      return repo.page${pascal}(db, query, scopeOf(ctx.account), query);
    },
  };
}

export type ${pascal}Service = ReturnType<typeof create${pascal}Service>;
`,

    [`${dir}/${kebab}.repository.ts`]: `import type { Selectable } from 'kysely';
import type { ${pascal}Table } from '../../db/tables/${kebab}.js';
import type { Scope } from '../../platform/auth/permissions.js';
import type { Executor } from '../../platform/db/executor.js';
import { paginate } from '../../platform/db/paginate.js';
import { scopeCondition } from '../../platform/db/scope.js';
import { containsPattern, keywordsCondition } from '../../platform/db/text-match.js';
import type { Page, PageRequest } from '../../platform/http/paging.js';
import type { ${pascal}, ${pascal}PageQuery } from './${kebab}.schemas.js';

export const NAME_INDEX = '${snake}_name_uq';

export interface ${pascal}Values {
  merchantId: number;
  shopId: number | null;
  name: string;
  remark: string | null;
}

function to${pascal}(r: Selectable<${pascal}Table>): ${pascal} {
  return { id: r.id, merchantId: r.merchant_id, shopId: r.shop_id, name: r.name, remark: r.remark };
}

/** A living record, locked for the rest of the transaction when \`forUpdate\`. */
export async function find${pascal}(db: Executor, id: number, forUpdate = false): Promise<${pascal} | null> {
  let q = db.selectFrom('${snake}').selectAll().where('id', '=', id).where('is_deleted', '=', false);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? to${pascal}(r) : null;
}

export async function insert${pascal}(db: Executor, v: ${pascal}Values, by: number): Promise<${pascal}> {
  const r = await db
    .insertInto('${snake}')
    .values({ merchant_id: v.merchantId, shop_id: v.shopId, name: v.name, remark: v.remark, created_by: by, updated_by: by })
    .returningAll()
    .executeTakeFirstOrThrow();
  return to${pascal}(r);
}

export async function update${pascal}(db: Executor, id: number, v: Pick<${pascal}Values, 'name' | 'remark'>, by: number): Promise<void> {
  await db.updateTable('${snake}').set({ name: v.name, remark: v.remark, updated_by: by, updated_at: new Date() }).where('id', '=', id).execute();
}

export async function softDelete${pascal}(db: Executor, id: number, by: number): Promise<void> {
  await db.updateTable('${snake}').set({ is_deleted: true, updated_by: by, updated_at: new Date() }).where('id', '=', id).execute();
}

export function page${pascal}(db: Executor, f: ${pascal}PageQuery, scope: Scope, page: PageRequest): Promise<Page<${pascal}>> {
  let q = db
    .selectFrom('${snake}')
    .selectAll()
    .where('is_deleted', '=', false)
    .where(scopeCondition(scope, '${snake}.merchant_id', '${snake}.shop_id'));
  if (f.name?.trim()) q = q.where('name', 'ilike', containsPattern(f.name.trim()));
  if (f.shopId != null) q = q.where('shop_id', '=', f.shopId);
  const kw = keywordsCondition(f.keywords, ['${snake}.name', '${snake}.remark']);
  if (kw) q = q.where(kw);
  return paginate(db, q.orderBy('id', 'desc'), page, to${pascal});
}
`,

    [`test/${kebab}/${kebab}.test.ts`]: `import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createShop, uniq } from '../helpers/factories.js';
import { itRefusesWhatStaffOperationsRefuse } from '../helpers/rejection-matrix.js';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The ${kebab} module, written by \`npm run new-module\` after the sales slice (docs/new-module.md): the
 * rejection matrix of every operation, success, scoping by merchant and shop, the module's own code
 * and the operation-log rows.
 */
const P = '/manage-api/${kebab}';
const ALL = ['${kebab}:create', '${kebab}:update', '${kebab}:delete', '${kebab}:query'];
const NAME_TAKEN = ${code(1)};

interface Row { id: number; merchantId: number; shopId: number | null; name: string; remark: string | null }

let t: TestApp;
let org: { merchantA: number; shopA1: number; merchantB: number };
let platform: StaffSession;
let merchantA: StaffSession;
let shopA1: StaffSession;
let merchantB: StaffSession;

beforeAll(async () => {
  t = await createTestApp();
  const merchantIdA = await createMerchant(t.db);
  org = { merchantA: merchantIdA, shopA1: await createShop(t.db, { merchant_id: merchantIdA }), merchantB: await createMerchant(t.db) };
  platform = await staffSession(t, { kind: 'platform', permissions: ALL });
  merchantA = await staffSession(t, { kind: 'merchant', merchantId: org.merchantA, permissions: ALL });
  shopA1 = await staffSession(t, { kind: 'shop', shopId: org.shopA1, permissions: ALL });
  merchantB = await staffSession(t, { kind: 'merchant', merchantId: org.merchantB, permissions: ALL });
});
afterAll(() => t?.close());

const add = (who: StaffSession, body: Record<string, unknown>) => t.post(\`\${P}/add${pascal}\`, body, who.token);
async function addOk(who: StaffSession, body: Record<string, unknown>): Promise<Row> {
  const res = await add(who, body);
  expect(res.body.errcode, res.body.errmsg).toBe(0);
  return res.body.data as Row;
}

describe('rejection matrix', () => {
  const validAdd = () => ({ name: uniq('${words} ') });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: \`\${P}/add${pascal}\`, permission: '${kebab}:create', validBody: validAdd,
    badInputs: [
      { body: () => ({}), field: 'name', rule: /name is required/ },
      { body: () => ({ name: 'x'.repeat(65) }), field: 'name' },
      { body: () => ({ ...validAdd(), remark: 'x'.repeat(501) }), field: 'remark' },
      { body: () => ({ ...validAdd(), merchantId: 0 }), field: 'merchantId' },
    ],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: \`\${P}/update${pascal}\`, permission: '${kebab}:update', validBody: () => ({ id: 1, ...validAdd() }),
    badInputs: [{ body: () => validAdd(), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: \`\${P}/delete${pascal}\`, permission: '${kebab}:delete', validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({ id: 'one' }), field: 'id' }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: \`\${P}/get${pascal}\`, permission: '${kebab}:query', validBody: () => ({ id: 1 }),
    badInputs: [{ body: () => ({}), field: 'id', rule: /id is required/ }],
  });
  itRefusesWhatStaffOperationsRefuse(() => t, {
    path: \`\${P}/query${pascal}Page\`, permission: '${kebab}:query', validBody: () => ({}),
    badInputs: [{ body: () => ({ pageSize: 1.5 }), field: 'pageSize', rule: /whole number/ }],
  });
});

describe('success', () => {
  it('adds, reads, pages, updates and deletes a ${words}', async () => {
    const name = uniq('Lakeside ');
    const created = await addOk(merchantA, { name: \`  \${name} \`, remark: 'by the lake' });
    expect(created).toEqual({ id: expect.any(Number), merchantId: org.merchantA, shopId: null, name, remark: 'by the lake' });
    expect((await t.post(\`\${P}/get${pascal}\`, { id: created.id }, platform.token)).body).toEqual({ errcode: 0, errmsg: 'success', data: created });
    expect((await t.post(\`\${P}/query${pascal}Page\`, { name }, merchantA.token)).body.data).toEqual({ list: [created], total: 1 });

    // An absent remark is kept; "" clears it.
    expect((await t.post(\`\${P}/update${pascal}\`, { id: created.id, name: \`\${name}!\` }, merchantA.token)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post(\`\${P}/get${pascal}\`, { id: created.id }, merchantA.token)).body.data).toEqual({ ...created, name: \`\${name}!\` });
    await t.post(\`\${P}/update${pascal}\`, { id: created.id, name, remark: '' }, merchantA.token);
    expect((await t.post(\`\${P}/get${pascal}\`, { id: created.id }, merchantA.token)).body.data.remark).toBeNull();

    expect((await t.post(\`\${P}/delete${pascal}\`, { id: created.id }, merchantA.token)).body).toEqual({ errcode: 0, errmsg: 'success' });
    expect((await t.post(\`\${P}/get${pascal}\`, { id: created.id }, platform.token)).body).toEqual({ errcode: 404, errmsg: '${words} not found' });
    expect((await t.post(\`\${P}/delete${pascal}\`, { id: created.id }, platform.token)).body.errcode).toBe(404);
    // The row stays, logically deleted.
    const row = await t.db.selectFrom('${snake}').select(['is_deleted', 'merchant_id']).where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ is_deleted: true, merchant_id: org.merchantA });
  });

  it('refuses a name used by another living ${words} of the merchant with ${code(1)}, and frees it on delete', async () => {
    const name = uniq('Taken ');
    const first = await addOk(merchantA, { name });
    expect((await add(shopA1, { name })).body).toEqual({ errcode: NAME_TAKEN, errmsg: \`name "\${name}" is already used by another ${words} of the merchant\` });
    const other = await addOk(merchantA, { name: uniq('Other ') });
    expect((await t.post(\`\${P}/update${pascal}\`, { id: other.id, name }, merchantA.token)).body.errcode).toBe(NAME_TAKEN);
    // Another merchant may use it; so may anyone once the first is deleted.
    await addOk(merchantB, { name });
    await t.post(\`\${P}/delete${pascal}\`, { id: first.id }, merchantA.token);
    await addOk(merchantA, { name });
  });
});

describe('scoping', () => {
  it('gives a record the caller\\'s merchant or shop, or the one platform staff name', async () => {
    expect(await addOk(shopA1, { name: uniq('Shop ') })).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA1 });
    expect(await addOk(merchantA, { name: uniq('In shop '), shopId: org.shopA1 })).toMatchObject({ merchantId: org.merchantA, shopId: org.shopA1 });
    expect(await addOk(platform, { name: uniq('For B '), merchantId: org.merchantB })).toMatchObject({ merchantId: org.merchantB, shopId: null });
    expect((await add(merchantA, { name: uniq('Foreign '), merchantId: org.merchantB })).body)
      .toEqual({ errcode: 403, errmsg: 'the record belongs to another merchant' });
  });

  it('refuses another merchant\\'s or shop\\'s ${words} with 403 on every operation, and pages only what the caller may see', async () => {
    const tag = uniq('scope ');
    const a = await addOk(merchantA, { name: \`\${tag} A\` });
    const a1 = await addOk(shopA1, { name: \`\${tag} A1\` });
    const b = await addOk(merchantB, { name: \`\${tag} B\` });
    const refused = { errcode: 403, errmsg: 'the record belongs to another merchant' };
    expect((await t.post(\`\${P}/get${pascal}\`, { id: b.id }, merchantA.token)).body).toEqual(refused);
    expect((await t.post(\`\${P}/update${pascal}\`, { id: b.id, name: 'Taken' }, merchantA.token)).body).toEqual(refused);
    expect((await t.post(\`\${P}/delete${pascal}\`, { id: b.id }, merchantA.token)).body).toEqual(refused);
    expect((await t.post(\`\${P}/get${pascal}\`, { id: a.id }, shopA1.token)).body).toEqual({ errcode: 403, errmsg: 'the record belongs to another shop' });
    expect((await t.post(\`\${P}/get${pascal}\`, { id: b.id }, merchantB.token)).body.data).toEqual(b);

    const ids = async (who: StaffSession) =>
      ((await t.post(\`\${P}/query${pascal}Page\`, { keywords: tag, pageSize: 50 }, who.token)).body.data.list as Row[]).map((r) => r.id).sort();
    expect(await ids(platform)).toEqual([a.id, a1.id, b.id].sort());
    expect(await ids(merchantA)).toEqual([a.id, a1.id].sort());
    expect(await ids(shopA1)).toEqual([a1.id]);
    expect(await ids(merchantB)).toEqual([b.id]);
  });
});

describe('operation log', () => {
  it('records add, update and delete with the business id, and a refused write as a failure', async () => {
    const r = await addOk(merchantA, { name: uniq('Logged ') });
    const clash = await addOk(merchantA, { name: uniq('Clash ') });
    await t.post(\`\${P}/update${pascal}\`, { id: r.id, name: \`\${r.name}!\` }, merchantA.token);
    await t.post(\`\${P}/update${pascal}\`, { id: clash.id, name: \`\${r.name}!\` }, merchantA.token);
    await t.post(\`\${P}/delete${pascal}\`, { id: r.id }, merchantA.token);
    const rows = await t.db
      .selectFrom('operate_log')
      .select(['module', 'action', 'biz_id', 'success', 'errcode'])
      .where('account_id', '=', merchantA.userId)
      .where('biz_id', 'in', [String(r.id), String(clash.id)])
      .orderBy('id')
      .execute();
    expect(rows.map((x) => [x.module, x.action, x.biz_id, x.success, Number(x.errcode)])).toEqual([
      ['${words}', 'add ${words}', String(r.id), true, 0],
      ['${words}', 'add ${words}', String(clash.id), true, 0],
      ['${words}', 'update ${words}', String(r.id), true, 0],
      ['${words}', 'update ${words}', String(clash.id), false, NAME_TAKEN],
      ['${words}', 'delete ${words}', String(r.id), true, 0],
    ]);
  });
});
`,
  };
}

// ---------------------------------------------------------------------------------------------------

function usage(): string {
  return [
    'usage: npm run new-module NAME',
    '       npm run new-module -- --dry-run NAME    (prints the files, writes nothing)',
    'NAME: kebab-case, 2–31 characters (gift-shop); the table is its snake_case (gift_shop).',
  ].join('\n');
}

function main(): number {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { 'dry-run': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n${usage()}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(usage());
    return 0;
  }
  const dryRun = parsed.values['dry-run'] === true;
  if (parsed.positionals.length !== 1) {
    console.error(usage());
    return 2;
  }
  const name = parsed.positionals[0];
  const problem = nameProblem(name);
  if (problem) {
    console.error(`new-module: refused "${name}": ${problem}`);
    return 1;
  }
  const n = namesOf(name);
  const migration = nextMigration(n);
  const errorsDoc = read('docs/errors.md');
  const range = nextRange(errorsDoc);
  const files = templates(n, range, migration.id);
  const taken = clash(n, Object.keys(files));
  if (taken) {
    console.error(`new-module: refused "${name}": ${taken}`);
    return 1;
  }

  const rangeText = `1_0${String(range).padStart(2, '0')}_000_000`;
  const lines = {
    migrationImport: `import * as ${migration.alias} from './${migration.id}.js';`,
    migrationEntry: `  '${migration.id}': ${migration.alias},`,
    tableImport: `import type { ${n.pascal}Table } from './tables/${n.kebab}.js';`,
    tableEntry: `  ${n.snake}: ${n.pascal}Table;`,
    moduleImport: `import { ${n.camel}Module } from './${n.kebab}/index.js';`,
    moduleEntry: `  ${n.camel}Module,`,
    errorsRow: `| ${rangeText} | ${n.kebab} | \`…001\` the name is already used by another ${n.words} of the merchant. Otherwise common codes: 400 naming the field, 403 another merchant's or shop's ${n.words} or owner, 404 ${n.words}, shop or merchant; 1_022_000_001 adding under a disabled merchant |`,
  };
  // Every edit is worked out before anything is written, so a file not as expected leaves the tree as it was.
  const edits: Edit[] = [
    edit(
      'src/db/migrations/index.ts',
      (text) =>
        lastInBlock(
          afterLast(
            text,
            /^import \* as m\d+ from '\.\/[\w]+\.js';$/,
            lines.migrationImport,
            'src/db/migrations/index.ts',
          ),
          'const migrations: Record<string, Migration> = {',
          '};',
          lines.migrationEntry,
          'src/db/migrations/index.ts',
        ),
      [lines.migrationImport, lines.migrationEntry],
    ),
    edit(
      'src/db/types.ts',
      (text) =>
        lastInBlock(
          afterLast(text, /^import type .* from '\.\/tables\/[\w-]+\.js';$/, lines.tableImport, 'src/db/types.ts'),
          'export interface DB {',
          '}',
          lines.tableEntry,
          'src/db/types.ts',
        ),
      [lines.tableImport, lines.tableEntry],
    ),
    edit(
      'src/modules/index.ts',
      (text) =>
        lastInBlock(
          afterLast(
            text,
            /^import \{ \w+Module \} from '\.\/[\w-]+\/index\.js';$/,
            lines.moduleImport,
            'src/modules/index.ts',
          ),
          'export const MODULES',
          '];',
          lines.moduleEntry,
          'src/modules/index.ts',
        ),
      [lines.moduleImport, lines.moduleEntry],
    ),
    edit('docs/errors.md', (text) => afterLast(text, /^\| 1_0\d\d_000_000 \|.*$/, lines.errorsRow, 'docs/errors.md'), [
      lines.errorsRow,
    ]),
  ];

  if (dryRun) {
    for (const [file, text] of Object.entries(files)) console.log(`=== ${file} (new)\n${text}`);
    for (const e of edits) console.log(`=== ${e.file} (changed)\n${e.added.map((l) => `+ ${l}`).join('\n')}\n`);
    console.log(`new-module: dry run for "${name}": nothing written.`);
    return 0;
  }

  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text, { flag: 'wx' });
  }
  for (const e of edits) writeFileSync(path.join(root, e.file), e.text);

  console.log(`new-module: wrote module "${name}" (table ${n.snake}, errcodes ${rangeText}):`);
  for (const file of Object.keys(files)) console.log(`  new      ${file}`);
  for (const e of edits) console.log(`  changed  ${e.file}`);
  console.log(`
Next steps (docs/new-module.md):
  1. Check it: npx eslint src/modules/${n.kebab} test/${n.kebab}; npx tsc -p tsconfig.json --noEmit;
     npx vitest run test/${n.kebab}/${n.kebab}.test.ts
  2. Make it the module the spec describes: the columns (the migration, src/db/tables/${n.kebab}.ts, the
     row mapper and values in ${n.kebab}.repository.ts), the schemas and their descriptions, the routes'
     paths, summaries, permissions and operation-log labels, the rules in ${n.kebab}.service.ts, and the
     tests in test/${n.kebab}/. Export from index.ts only what other modules must call.
  3. Document it: the module in docs/architecture.md §4.2, its table in §4.3 (owner ${n.kebab}), its codes
     in the ${rangeText} row of docs/errors.md, choices the spec leaves open as an ADR in docs/adr/.
  4. Spec operations: the paths in test/spec/endpoints.tsv; records of another merchant and shop for
     test/security/cross-scope.test.ts (foreignRecords) if the demo data holds none; then
     npm run openapi:types.`);
  return 0;
}

process.exitCode = main();
