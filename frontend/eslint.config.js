import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { reactRefresh } from 'eslint-plugin-react-refresh';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;
/** The features (`src/features/<feature>/`); each one's public file is its `index.ts`. */
const features = readdirSync(`${root}/src/features`, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
/** Code every feature may use; it never uses a feature (app/ and testing/ put features together). */
const shared = ['api', 'components', 'config', 'session', 'theme', 'utils'];

export default defineConfig([
  globalIgnores(['dist', 'coverage', 'src/**/*.gen.ts']),
  {
    files: ['**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [
      js.configs.recommended,
      tseslint.configs.strictTypeChecked,
      tseslint.configs.stylisticTypeChecked,
      reactHooks.configs.flat.recommended,
      reactRefresh.configs.vite(),
    ],
    languageOptions: {
      globals: globals.browser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Icons are imported by path (`@mui/icons-material/GitHub`) so that the
      // bundle and the dev server only load the icons in use.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@mui/icons-material',
              message:
                "Import icons by path, e.g. `import GitHub from '@mui/icons-material/GitHub'`.",
            },
          ],
        },
      ],
      // RTK Query's documented way to type an endpoint without argument is
      // `build.query<Result, void>`, which this rule reports.
      '@typescript-eslint/no-invalid-void-type': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  {
    // The frontend's boundaries: no import cycles; shared code imports no feature; a feature uses another
    // only through that feature's public file (`src/features/<feature>/index.ts`).
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      // Which files the import rules read (TypeScript with its parser), and how imports resolve.
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: `${root}/tsconfig.app.json` }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: root,
          zones: [
            {
              target: shared.map((dir) => `./src/${dir}`),
              from: './src/features',
              message: 'Shared code never imports a feature.',
            },
            ...features.map((feature) => ({
              target: `./src/features/${feature}`,
              from: `${root}/src/features/**`,
              except: [`${root}/src/features/${feature}/**`, `${root}/src/features/*/index.ts`],
              message: `Import another feature through its public file (\`features/<feature>/index.ts\`).`,
            })),
          ],
        },
      ],
    },
  },
]);
