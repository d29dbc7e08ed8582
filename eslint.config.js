// Lint for the whole repo (electron, shared, renderer, test, scripts, bin): typescript-eslint's
// recommended rules everywhere, React's hook rules and jsx-a11y on the renderer. Runs in
// `npm test` (`npm run lint`). A disable comment must say why on the same line.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import globals from 'globals';

/** A disable comment must give its reason after ` -- ` (ESLint's own description syntax). */
const local = {
  rules: {
    'disable-needs-reason': {
      meta: { type: 'suggestion', schema: [], messages: { why: 'eslint-disable without a reason: add " -- why" to the comment' } },
      create(context) {
        return {
          Program() {
            for (const c of context.sourceCode.getAllComments()) {
              if (/^\s*eslint-disable/.test(c.value) && !/ -- \S/.test(c.value)) context.report({ loc: c.loc, messageId: 'why' });
            }
          },
        };
      },
    },
  },
};

export default tseslint.config(
  {
    ignores: ['dist/**', 'release/**', 'build/**', 'node_modules/**', 'test-results/**', 'coverage/**', '.stryker-tmp/**', 'reports/**', '.cache/**'],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The backend writes paired side effects as one comma expression in a one-line if
    // (`if (x) (parts.push(a), args.push(b))`): statements by intent, which this rule cannot tell.
    files: ['electron/**/*.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
  {
    // Readers of untrusted text match control characters on purpose (to refuse or strip them).
    files: ['electron/importers/**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    files: ['**/*.{js,cjs,mjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // CommonJS files: *.cjs, and bin/ (its package.json says commonjs; bin/flipbook.js says why).
    files: ['**/*.cjs', 'bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['electron/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    // The two classic hook rules. The plugin's React Compiler rules (set-state-in-effect, refs, …)
    // are for code the compiler memoizes; this app is not built with the React Compiler.
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  { files: ['renderer/**/*.tsx'], ...jsxA11y.flatConfigs.recommended },
  {
    plugins: { local },
    rules: {
      'local/disable-needs-reason': 'error',
      // zod as a namespace, so that the CLI's build keeps only the parts of zod in use
      // (docs/architecture.md "CLI start-up").
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'] > :matches(ImportSpecifier, ImportDefaultSpecifier)",
          message: "import * as z from 'zod': the build can then leave out the parts of zod no source uses",
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
