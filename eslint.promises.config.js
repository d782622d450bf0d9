// ESLint, `npm run lint:promises`: the type-aware rules that catch real bugs in async code (a
// promise nobody awaits or catches: an unhandled rejection kills the process). They need the
// TypeScript program (~30 s), so they are apart from `npm run lint` (eslint.config.js).
import tseslint from 'typescript-eslint';
import base from './eslint.config.js';

export default tseslint.config(
  ...base,
  {
    linterOptions: { reportUnusedDisableDirectives: 'warn' },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An unawaited promise loses its error.
      '@typescript-eslint/no-floating-promises': 'error',
      // A promise passed where a callback's result is ignored, or tested as a boolean.
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // The board page is typed for the browser (DOM): its own tsconfig.
    files: ['web/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.web.json' } },
  },
);
