import type { AccountKind } from './http/context.js';
import type { AccountLoader } from './auth/tokens.js';
import type { RouteSpec } from './http/routes.js';
import type { Deps } from './deps.js';
import type { BackgroundJob } from './jobs.js';
import type { ErrcodeGroup } from './errors.js';
import type { StaticPage } from './http/pages.js';

/**
 * A business module as the app sees it: the routes it serves and the account kinds whose sessions
 * it can rebuild from the database. Each module declares itself in its own folder
 * (`<module>.module.ts`); src/modules/index.ts only lists them.
 */
export interface ModuleDefinition {
  name: string;
  accountLoaders?: Partial<Record<AccountKind, AccountLoader>>;
  routes(deps: Deps): RouteSpec[];
  /** Codes every route of the module can answer besides the common ones (its `<module>.errors.ts`). */
  errcodes?: Array<ErrcodeGroup | number>;
  /** periodic tasks, scheduled by the app on every instance (platform/jobs.ts) */
  jobs?(deps: Deps): BackgroundJob[];
  /** pages served outside the API channels, without a token (the live board) */
  pages?(deps: Deps): StaticPage[];
  /** runs when the app starts closing, before it waits for open connections (ends long-lived streams) */
  preClose?(deps: Deps): void | Promise<void>;
}

export const defineModule = (module: ModuleDefinition): ModuleDefinition => module;
