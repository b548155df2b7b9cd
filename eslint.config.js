// ESLint (flat config): typescript-eslint's recommended rules over src/, test/ and bench/, tuned
// to how this code base is written; `npm run lint`. Formatting is Prettier's (.prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'storage/', 'test-results/', 'examples/**/node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      // Unused names are errors, except a deliberate `_`-prefixed one (destructuring a field away, an unused parameter).
      // Unused parameters are allowed: a callback's signature is its caller's.
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Crawlee's and Playwright's generic types are `any` in places we pass through.
      '@typescript-eslint/no-explicit-any': 'off',
      // `cond && doIt()`, `a ? b() : c()` and `(f(x), g(x))` as statements are this code base's style for short loop bodies.
      '@typescript-eslint/no-unused-expressions': 'off',
      // A variable assigned once after a closure that reads it (set up late) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Escaped `/` and `[` inside regex character classes are kept where they read more plainly.
      'no-useless-escape': 'off',
      // Control characters in regexes are deliberate (text cleaning of extracted pages).
      'no-control-regex': 'off',
    },
  },
);
