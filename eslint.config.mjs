// Lint: typescript-eslint's type-checked rules, plus the layer rules of docs/architecture.md.
// Formatting is Prettier's job (eslint-config-prettier turns off the rules that would disagree).
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import journeyLint from './scripts/journey-lint.cjs';

// Imports are allowed by list. Leaving its own feature, a file may import only the shared layers
// (common/, web/, db/, config, the OpenAPI kit) and another feature's service, types or middleware.
// The OAuth sub-folders (authorize/, clients/, tokens/, ...) are features of their own; the files at
// the root of oauth/ (its vocabulary, errors, parameters and the consent page) are shared by them.
const ALLOWED_FROM_SRC =
  '(?!(common|web|db)/)(?!(config|openapi/openapi\\.kit|oauth/protocol)$)(?![^./][^/]*/([^/]+/)?[^/]+\\.(service|types|middleware|openapi)$)';
const ALLOWED_IN_OAUTH =
  '(?!(protocol|oauth\\.errors|oauth\\.parameters|consent\\.page)$)(?![^./][^/]*/[^/]+\\.(service|types|middleware)$)';
const layerMessage =
  "Leaving its feature, a file imports only common/, web/, db/, config, the OpenAPI kit, or another feature's service, types or middleware (docs/architecture.md).";
const mongooseMessage = 'Only DAOs, stores and models (and db/) import mongoose.';
const STORAGE_FILES = ['dao', 'store', 'model'];

/** What a file in `folder` may not import: `up` is the relative path from it to src/. */
function forbiddenPatterns(up, oauthSubFeature) {
  // A type import runs nothing, so a model's document type may be named anywhere.
  const patterns = [{ regex: `^${up.replace(/\./g, '\\.')}${ALLOWED_FROM_SRC}`, message: layerMessage, allowTypeImports: true }];
  if (oauthSubFeature) patterns.push({ regex: `^\\.\\./(?!\\.\\./)${ALLOWED_IN_OAUTH}`, message: layerMessage, allowTypeImports: true });
  return patterns;
}

function layerRules(folder, up, oauthSubFeature = false, ignores = []) {
  const patterns = forbiddenPatterns(up, oauthSubFeature);
  return [
    {
      files: [`${folder}*.ts`],
      ignores,
      rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'mongoose', message: mongooseMessage }], patterns }] },
    },
    {
      files: STORAGE_FILES.map((role) => `${folder}*.${role}.ts`),
      ignores,
      rules: { 'no-restricted-imports': ['error', { patterns }] },
    },
  ];
}

const { JOURNEY_ONLY, SESSION_ONLY } = journeyLint;
/** The two files that touch req.session (scripts/journey-lint.cjs). */
const SESSION_OWNERS = ['src/session/session.middleware.ts', 'src/sign-in/interaction.ts'];

const ENTRY_POINTS = ['src/app.ts', 'src/server.ts', 'src/wiring.ts', 'src/stores.ts', 'src/cli/**/*.ts'];

const NO_IMPORT_TIME_WORK = {
  // Setting the driver's global options (db/mongoose.ts) is configuration, not work.
  selector: "Program > ExpressionStatement:not([expression.callee.object.name='mongoose'][expression.callee.property.name='set'])",
  message: 'No work at import time: wire it in createApp or src/wiring.ts.',
};

const NO_MODULE_CACHE = {
  // A Map or a SignalledCache made at import time would be shared by every app in the process.
  selector:
    ':matches(Program, Program > ExportNamedDeclaration) > VariableDeclaration > VariableDeclarator > NewExpression[callee.name=/^(Map|SignalledCache)$/]',
  message: 'No cache in a module global: make it per app, as a decorator on a store (src/stores.ts).',
};

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
  ...layerRules('src/*/', '../', false, ['src/common/*.ts', 'src/web/*.ts', 'src/db/*.ts', 'src/cli/*.ts']),
  ...layerRules('src/oauth/*/', '../../', true),
  ...layerRules('src/weather/*/', '../../'),
  {
    // Shared layers import only each other (and db/ only config, below).
    files: ['src/common/*.ts', 'src/web/*.ts'],
    ignores: STORAGE_FILES.map((role) => `src/common/*.${role}.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'mongoose', message: mongooseMessage }],
          patterns: [
            { regex: '^\\.\\./(?!(common|web|db)/)(?!config$)', message: 'common/ and web/ import only each other, db/ and config.' },
          ],
        },
      ],
    },
  },
  {
    // Importing a module does nothing but define things: what runs is wired at composition time.
    files: ['src/**/*.ts'],
    ignores: [...ENTRY_POINTS, 'src/**/*.model.ts', 'src/sign-in/**', ...SESSION_OWNERS],
    rules: { 'no-restricted-syntax': ['error', NO_IMPORT_TIME_WORK, NO_MODULE_CACHE, ...JOURNEY_ONLY, ...SESSION_ONLY] },
  },
  {
    files: ['src/sign-in/**/*.ts'],
    ignores: [...SESSION_OWNERS, 'src/**/*.model.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_IMPORT_TIME_WORK, NO_MODULE_CACHE, ...SESSION_ONLY] },
  },
  { files: ['src/sign-in/interaction.ts'], rules: { 'no-restricted-syntax': ['error', NO_IMPORT_TIME_WORK, NO_MODULE_CACHE] } },
  {
    files: ['src/session/session.middleware.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_IMPORT_TIME_WORK, NO_MODULE_CACHE, ...JOURNEY_ONLY] },
  },
  { files: ENTRY_POINTS, rules: { 'no-restricted-syntax': ['error', ...JOURNEY_ONLY, ...SESSION_ONLY] } },
  {
    // The bottom layer: the database helpers import nothing of the app but its config.
    files: ['src/db/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(?!config$)', message: 'db/ is the bottom layer.' }] }] },
  },
  {
    // Entry points wire the features together.
    files: ENTRY_POINTS,
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
  {
    // Scripts the pages run in the browser (served from /assets).
    files: ['public/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { window: 'readonly', document: 'readonly', fetch: 'readonly' } },
  },
  prettier,
);
