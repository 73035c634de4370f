import { http, HttpResponse } from 'msw';

import type { PublicConfig } from '../features/publicConfig';

/** What the fake server answers for `GET /api/public-config` unless a test says otherwise. */
export const testPublicConfig: PublicConfig = {
  docsUrl: 'https://docs.portal.test/',
  sourceUrl: 'https://git.portal.test/os',
  exampleAppUrl: 'https://git.portal.test/example-app',
  providers: ['google', 'apple'],
  identity: {
    kind: 'builtin',
    url: 'http://localhost:3000',
    authUrl: 'http://localhost:3000/auth/v1',
    anonKey: 'test-anon-key',
  },
  keepLoopbackHttp: false,
  monitorIntervalSecs: 60,
  companionInstallUrl: null,
  passkeyOrigin: null,
  mailSent: true,
};

export const handlers = [
  http.get('*/api/public-config', () => HttpResponse.json(testPublicConfig)),
  // The dashboard lists the organization's apps; none unless a test says otherwise.
  http.get('*/api/dev/apps', () => HttpResponse.json([])),
  // The tokens acting in an organization (its admins' Organization Settings): none unless a test says otherwise.
  http.get('*/api/orgs/:orgId/tokens', () => HttpResponse.json({ tokens: [] })),
  // The publish checklist's live check: the app's server is healthy unless a test says otherwise.
  http.get('*/api/dev/apps/:pkg/health-check', ({ params }) =>
    HttpResponse.json({
      success: true,
      status: 200,
      data: { status: 'healthy' },
      packageName: String(params.pkg),
      health: 'healthy',
      online: true,
      latencyMs: 18,
    }),
  ),
];

/** The fake server's `GET /api/public-config` with `changes` (for `server.use`). */
export function publicConfigWith(changes: Partial<PublicConfig>) {
  return http.get('*/api/public-config', () =>
    HttpResponse.json({ ...testPublicConfig, ...changes }),
  );
}
