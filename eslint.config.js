// Flat config: typescript-eslint type-checked rules plus the house rules of STYLE.md §11.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nodePlugin from 'eslint-plugin-n';

const ISOMORPHIC = [
  'packages/pipeline/src/**/*.ts',
  'packages/errors/src/**/*.ts',
  'packages/runtime-spec/src/**/*.ts',
  'packages/config/src/**/*.ts',
  // The browser has no Node built-ins either.
  'apps/web/src/**/*.{ts,tsx}',
];

/**
 * Each TypeScript project's types key, from scripts/check-code.mjs (scripts/lib/types-key.mjs),
 * in the settings of the project's files: ESLint's cache keeps a file's result only while its
 * configuration is the same, so a change to the types a project can see relints that project.
 */
const TYPE_KEYS = Object.entries(JSON.parse(process.env.SLUICE_LINT_TYPE_KEYS ?? '{}')).map(
  ([dir, key]) => ({ files: [`${dir}/**`], settings: { sluiceTypesKey: key } }),
);

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'apps/web/.tsc/**',
      'scripts/**',
      'bench/**/*.mjs',
      'apps/cli/bin/**',
      'eslint.config.js',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { n: nodePlugin },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'n/prefer-node-protocol': 'error',
      'no-console': 'error',
      'max-lines': ['warn', { max: 400, skipBlankLines: true, skipComments: true }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports' },
        { selector: 'TSEnumDeclaration', message: 'Use an `as const` object instead of enum' },
      ],
    },
  },
  {
    files: ISOMORPHIC,
    ignores: ['**/*.test.ts', '**/*.test-support.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['node:*'], message: 'Pure packages do no I/O: no Node built-ins' }],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  ...TYPE_KEYS,
);
