// Lint: typescript-eslint's type-checked rules, plus the layer rules of docs/architecture.md.
// Formatting is Prettier's job (eslint-config-prettier turns off the rules that would disagree).
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const FEATURE_ROLES_OTHERS_MAY_NOT_IMPORT = 'controller|dao|model|page|routes|store|validation|storage|strategy|grant';
const SHARED = 'common|web|db|openapi/openapi\\.kit$|config$';

/** An import of another feature's internals, from a file `depth` folders below src/. */
function otherFeatureInternals(depth) {
  const up = '\\.\\./'.repeat(depth);
  return `^${up}(?!(${SHARED}))[^./][^/]*/([^/]+/)*[^/]+\\.(${FEATURE_ROLES_OTHERS_MAY_NOT_IMPORT})$`;
}

const layerMessage = 'A feature imports another feature only through its service or types (or web/, common/, db/).';
const mongooseMessage = 'Only DAOs, stores and models (and db/) import mongoose.';
const STORAGE_FILES = ['dao', 'store', 'model'];

/** The layer rules for files `depth` folders below src/ (going up fewer levels stays inside the feature). */
function layerRules(depth) {
  const folder = `src/${'*/'.repeat(depth)}`;
  const features = { regex: otherFeatureInternals(depth), message: layerMessage };
  return [
    {
      files: [`${folder}*.ts`],
      rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'mongoose', message: mongooseMessage }], patterns: [features] }] },
    },
    {
      files: STORAGE_FILES.map((role) => `${folder}*.${role}.ts`),
      rules: { 'no-restricted-imports': ['error', { patterns: [features] }] },
    },
  ];
}
export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', '.data/**', 'tools/**', 'data/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Express 5 handlers are async and forward rejections themselves.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // Handlers are plain functions in object literals and never use `this`.
      '@typescript-eslint/unbound-method': 'off',
      // The oauth2-server model and other interfaces are promise-returning; `async` states that.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  { files: ['src/**/*.ts'], rules: { 'no-console': 'error' } },
  ...layerRules(1),
  ...layerRules(2),
  ...layerRules(3),
  {
    // The bottom layer: the database helpers import nothing of the app but its config.
    files: ['src/db/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(?!config$)', message: 'db/ is the bottom layer.' }] }] },
  },
  {
    // Entry points wire the features together.
    files: ['src/app.ts', 'src/server.ts', 'src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'mongoose', message: mongooseMessage }] }] },
  },
  {
    // supertest types every response body as `any`; the tests assert its shape.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain Node scripts that must run before anything is compiled.
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
