// Lint rules of the house (docs/architecture.md §4): the layers point one way and a module is
// entered only through its front door, src/modules/<m>/index.ts.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const modules = readdirSync(new URL('./src/modules/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const FRONT_DOOR =
  'A module is entered only through its front door (src/modules/<m>/index.ts): import "../<m>/index.js" (docs/architecture.md §4).';

/** Imports from inside a module other than `own` that skip that module's index.ts. */
const deepImportsExcept = (own) => ({
  regex: `(^|/)modules/(?!${own}/)[a-z-]+/(?!index\\.js$)|^\\.\\./(?!${own}/)(?!\\.\\.)[a-z-]+/(?!index\\.js$)`,
  message: FRONT_DOOR,
});

const restricted = (...patterns) => ['error', { patterns }];

export default tseslint.config(
  {
    ignores: ['dist/**', 'data/**', 'node_modules/**', '.test-cache/**', 'coverage/**', 'test/client/openapi-types.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Layout is Prettier's: rules that would contradict it are off.
  prettier,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: globals.node },
    rules: {
      // The sanitisers strip control characters on purpose (input guard, xlsx cells, file names).
      'no-control-regex': 'off',
      // One import statement per module: a front door imported once per file.
      'no-duplicate-imports': ['error', { includeExports: false, allowSeparateTypeImports: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  // Tests and benchmarks take what a library hands them as it comes.
  { files: ['test/**/*.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  // The foundation: the schema names no layer above it.
  {
    files: ['src/db/**/*.ts'],
    rules: {
      'no-restricted-imports': restricted({
        regex: '(^|/)(platform|modules|seed)/|^\\.\\./(app|main|config)\\.js$',
        message: 'src/db holds the schema only and imports no layer above it (docs/architecture.md §4).',
      }),
    },
  },
  // The platform serves every module and knows none of them.
  {
    files: ['src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': restricted({
        regex: '(^|/)(modules|seed)/',
        message: 'src/platform imports nothing from modules or seed (docs/architecture.md §4).',
      }),
    },
  },
  // Each module: other modules only through their front doors, nothing from the layers above.
  ...modules.map((own) => ({
    files: [`src/modules/${own}/**/*.ts`],
    rules: {
      'no-restricted-imports': restricted(deepImportsExcept(own), {
        regex: '(^|/)seed/|^(\\.\\./)+(app|main)\\.js$',
        message: 'A module imports no layer above it (docs/architecture.md §4).',
      }),
    },
  })),
  // The seeds, the app and the scripts above the modules still enter them by their front doors.
  {
    files: ['src/seed/**/*.ts', 'src/*.ts', 'scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': restricted({
        regex: '(^|/)modules/[a-z-]+/(?!index\\.js$)',
        message: FRONT_DOOR,
      }),
    },
  },
);
