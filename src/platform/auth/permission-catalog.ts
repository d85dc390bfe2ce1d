import type { RouteSpec } from '../http/routes.js';
import { CHANNEL_PREFIX } from '../http/context.js';

export interface PermissionEntry {
  /** e.g. `card:write` */
  permission: string;
  /** the operations that require it, with their channel prefix */
  operations: string[];
}

/**
 * Every permission the served routes declare, collected from the route table at start (the names a
 * role may hold). Module wildcards (`card:*`) and `*` are derived from these names.
 */
export class PermissionCatalog {
  private readonly byPermission = new Map<string, Set<string>>();

  register(routes: readonly RouteSpec[]): void {
    for (const route of routes) {
      if (typeof route.permission !== 'string' || route.permission === '') continue;
      let ops = this.byPermission.get(route.permission);
      if (!ops) this.byPermission.set(route.permission, (ops = new Set()));
      for (const channel of route.channels) ops.add(CHANNEL_PREFIX[channel] + route.path);
    }
  }

  list(): PermissionEntry[] {
    return [...this.byPermission.entries()]
      .map(([permission, ops]) => ({ permission, operations: [...ops].sort() }))
      .sort((a, b) => a.permission.localeCompare(b.permission));
  }

  /** Whether a role may hold `name`: `*`, a declared permission, or `<module>:*` of a declared module. */
  isKnown(name: string): boolean {
    if (name === '*' || this.byPermission.has(name)) return true;
    if (!name.endsWith(':*')) return false;
    const prefix = name.slice(0, -1);
    for (const p of this.byPermission.keys()) if (p.startsWith(prefix)) return true;
    return false;
  }
}
