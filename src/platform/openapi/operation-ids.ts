import type { Channel } from '../http/context.js';

/**
 * A stable operationId from where the operation lives: the channel, then the path's words in camel
 * case (`/manage-api/sales/addSales` → `manageSalesAddSales`), and for the extra methods of an ANY
 * operation the method (`…Get`, `…Put`). It depends on nothing else, so adding an operation never
 * renames another, and two operations cannot share one.
 */
export function operationId(channel: Channel, path: string, anyMethod: string | null): string {
  const words = path.split(/[/_-]+/).filter(Boolean);
  const camel = [channel, ...words].map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
  return anyMethod && anyMethod !== 'POST' ? camel + anyMethod.charAt(0) + anyMethod.slice(1).toLowerCase() : camel;
}
