import type { ColumnType, Generated } from 'kysely';

/** Timestamps come back as Date and are written as Date (or left to their default). */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** numeric columns come back as text so no precision is lost; they are written as text or number. */
export type Numeric = ColumnType<string | null, string | number | null | undefined, string | number | null>;

export interface Audit {
  created_by: number | null;
  created_at: Generated<Date>;
  updated_by: number | null;
  updated_at: Generated<Date>;
}

/** date columns travel as 'YYYY-MM-DD' text (the database layer keeps them unparsed) */
export type DateText = ColumnType<string, string, string>;

export type StorageKind = 'local' | 's3';
