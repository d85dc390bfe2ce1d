/**
 * Ids of the demo records. The generator assigns ids itself (the check-in stream needs the card,
 * SKU, entrance and verifier ids while it generates), counting up from each table's current high-water
 * mark (the larger of max(id) and the identity sequence's last value, 0 on a fresh database), and
 * advances the identity sequences past them when it is done. Staff, roles and user roles use
 * `generated always` identities and get their ids from the database.
 */
export const ID_TABLES = [
  'merchant',
  'shop',
  'shop_relation',
  'dept',
  'spu',
  'sku',
  'sku_entrance',
  'tickets_sku',
  'card_model',
  'card_model_resource_rule',
  'card_model_resource_price',
  'checker',
  'checker_relation',
  'checker_config',
  'member',
  'card',
  'card_binding',
  'card_check',
] as const;

export type IdTable = (typeof ID_TABLES)[number];

export type IdBases = Record<IdTable, number>;

export class IdAllocator {
  private readonly last: IdBases;

  constructor(bases: IdBases) {
    this.last = { ...bases };
  }

  next(table: IdTable): number {
    return ++this.last[table];
  }

  /** The next id `next` would give, without taking it. */
  peek(table: IdTable): number {
    return this.last[table] + 1;
  }

  /** Takes `count` consecutive ids and returns the first. */
  reserve(table: IdTable, count: number): number {
    const first = this.last[table] + 1;
    this.last[table] += count;
    return first;
  }
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** Card numbers: '86' + model digit + a 12-digit serial, unique across the data set. */
export function cardNumber(modelIndex: number, serial: number): string {
  return `86${modelIndex + 1}${pad(serial, 12)}`;
}

/** Sales order numbers: 'TC' + activation date + a 9-digit serial. */
export function orderNumber(activeDate: string, serial: number): string {
  return `TC${activeDate.replace(/-/g, '')}${pad(serial, 9)}`;
}

/** Verifier mobiles 13800000001, 13800000002, … (1 is the demo verifier). */
export function checkerMobile(n: number): string {
  return `1380000${pad(n, 4)}`;
}

export const staffName = (prefix: string, n: number): string => `${prefix}${pad(n, 2)}`;
