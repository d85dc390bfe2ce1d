import { badRequest } from '../../platform/errors.js';

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A file name is a label (shown in Content-Disposition), never a path: separators, '.', '..' and
 * control characters (NUL among them) are refused rather than quietly cleaned, so a client learns
 * its mistake.
 */
export function checkFileName(name: string, field: string): string {
  const text = name.trim();
  if (text === '') throw badRequest(`${field} is required`);
  if (CONTROL.test(text)) throw badRequest(`${field} must not contain control characters`);
  if (/[/\\]/.test(text) || text === '.' || text === '..') throw badRequest(`${field} must be a file name, not a path`);
  if (text.length > 255) throw badRequest(`${field} is too long: at most 255 characters`);
  return text;
}

/**
 * The fileKey clients send with every chunk: their own label of the upload (the object key is ours).
 * Inner slashes are allowed, as keys often have them; absolute paths, '..' segments and control
 * characters are refused.
 */
export function checkClientFileKey(key: string): string {
  const text = key.trim();
  if (text === '') throw badRequest('fileKey is required');
  if (CONTROL.test(text)) throw badRequest('fileKey must not contain control characters');
  if (/^[/\\]|^[A-Za-z]:/.test(text) || text.split(/[/\\]/).some((segment) => segment === '..')) {
    throw badRequest('fileKey must be a relative name without ".." segments');
  }
  return text;
}
