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
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-duplicates': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Imports point downwards (DESIGN.md): the renderer knows nothing of diff, risk,
    // report, github, queue or server.
    files: ['src/render/**/*.ts', 'src/git/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/diff/**',
                '**/risk/**',
                '**/report/**',
                '**/github/**',
                '**/queue/**',
                '**/server/**',
                '**/pipeline.js',
                '**/cli.js',
              ],
              message: 'render/ and git/ sit below the rest of the pipeline',
            },
          ],
        },
      ],
    },
  },
);
