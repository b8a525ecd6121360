import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'examples/', 'test/fixtures/'] },
  js.configs.recommended,
  {
    files: ['bin/**/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', AbortController: 'readonly' },
    },
  },
  ...tseslint.configs.recommended,
  {
    // Which folder may import which is test/unit/layering.test.ts's job (every folder, type
    // edges included); the linter keeps cycles and import hygiene.
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-duplicates': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // A zod schema and the type inferred from it share one name, without a `Schema` suffix:
    // `export const PullRef = z.object(...); export type PullRef = z.infer<typeof PullRef>;`.
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "VariableDeclarator[id.name=/Schema$/] CallExpression[callee.object.name='z']",
          message:
            'Name a zod schema as its inferred type is named, without a Schema suffix (const PullRef = z.object(...)).',
        },
      ],
    },
  },
);
