// ESLint: the recommended rules of JavaScript and typescript-eslint, plus the type-aware rules
// that catch real bugs in async code (a promise nobody awaits or catches).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.stack/',
      'coverage/',
      'tmp/',
      'scratch/',
      'drizzle/',
      'dist/',
      'src/client/generated.ts',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An unawaited promise loses its error (an unhandled rejection kills the process).
      '@typescript-eslint/no-floating-promises': 'error',
      // A promise passed where a callback's result is ignored, or tested as a boolean.
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `_`-prefixed parameters and variables are unused on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Prettier wraps code at 120 columns but never comments: this catches those. Strings and
      // templates (messages, SQL, test names) stay whole, so that grep finds them.
      'max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreStrings: true, ignoreTemplateLiterals: true },
      ],
    },
  },
  {
    // The board page is typed for the browser (DOM): its own tsconfig.
    files: ['web/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.web.json' } },
  },
  {
    // Tests and benchmarks read JSON answers off the wire.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
