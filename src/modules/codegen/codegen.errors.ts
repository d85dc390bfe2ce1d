import { conflict, forbidden, notFound } from '../../platform/errors.js';

/** Code-generation refusals: common codes only (docs/errors.md, range 1_015_000_000 unused). */
export const columnNotFound = () => notFound('codegen column');
export const platformOnly = () => forbidden('code generation is for platform staff');
export const columnNameTaken = (table: number, column: string) =>
  conflict(`table ${table} already has a column named "${column}"`);
