/** The environment variable the SDK's example apps read the key from. */
export const API_KEY_ENV_VAR = 'MENTRAOS_API_KEY';

/** The `.env` lines and the SDK setup of an app server, with `key` in the variable when one is shown. */
export function apiKeySnippet(packageName: string, key?: string | null): string {
  return [
    '# .env',
    `PACKAGE_NAME=${packageName}`,
    `${API_KEY_ENV_VAR}=${key ?? 'paste-your-api-key-here'}`,
    '',
    '// index.ts',
    "import { AppServer } from '@mentra/sdk';",
    '',
    'const server = new AppServer({',
    '  packageName: process.env.PACKAGE_NAME!,',
    `  apiKey: process.env.${API_KEY_ENV_VAR}!,`,
    '  port: 3000,',
    '});',
    'await server.start();',
  ].join('\n');
}
