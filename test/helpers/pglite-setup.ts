import { keepPgliteCompiled } from './pglite-compiled.js';

// Before any file's own code starts a PGlite, on PostgreSQL too (some files start one of their own);
// once per worker, as the module above is loaded once per worker (test/helpers/pglite-compiled.ts).
await keepPgliteCompiled();
