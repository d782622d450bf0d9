// ESLint, `npm run lint`: the recommended rules of JavaScript and typescript-eslint, without type
// information, so it takes seconds. The type-aware rules (a promise nobody awaits or catches) need
// the TypeScript program and take ~30 s: `npm run lint:promises` (eslint.promises.config.js),
// which CI runs too.
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
    // Directives that silence a type-aware rule are used by lint:promises only.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
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
    // Tests and benchmarks read JSON answers off the wire.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
