// ESLint, `npm run lint`: the recommended rules of JavaScript and typescript-eslint, without type
// information, so it takes seconds. The type-aware rules (a promise nobody awaits or catches) need
// the TypeScript program and take ~30 s: `npm run lint:promises` (eslint.promises.config.js),
// which CI runs too.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Imports matching `patterns` are refused in `files`, with `why`. */
function layer(files, patterns, why) {
  return [
    {
      files: [files],
      rules: { 'no-restricted-imports': ['error', { patterns: [{ group: patterns, message: why }] }] },
    },
  ];
}

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
  // The layers (docs/architecture.md): the domain imports nothing outside itself; the use cases
  // (service/) and the GraphQL layer reach PostgreSQL, Redis and Kafka only through ports that the
  // adapters (postgres/, redis/, kafka/) implement and src/app wires; adapters know no caller.
  ...layer('src/domain/**', ['../*'], 'the domain is pure: it imports only src/domain'),
  ...layer(
    'src/{service,graphql}/**',
    ['../redis/*', '../postgres/*', '../kafka/*', '../app/*', '../cli/*'],
    'use a port of service/ (an adapter implements it; src/app wires it)',
  ),
  ...layer(
    'src/cli/**',
    ['../redis/*', '../postgres/*', '../kafka/*'],
    'the CLI gets its parts from the composition root (src/app: withApp, cli-parts.ts)',
  ),
  ...layer('src/config.ts', ['./redis/*', './postgres/*', './kafka/*', './app/*'], 'settings import no adapter'),
  ...layer('src/{redis,postgres,kafka}/**', ['../graphql/*', '../app/*', '../cli/*'], 'an adapter knows no caller'),
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
