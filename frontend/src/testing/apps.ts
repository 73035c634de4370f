import { http, HttpResponse } from 'msw';

import { makeStore } from '../app/store';
import type { App } from '../features/apps/types';
import type { Organization } from '../features/orgs/types';
import { server } from './server';

export const TEST_USER = { id: 'u-ada', email: 'ada@example.com' };

/** A store signed in as Ada, with `orgId` as the current organization. */
export function signedInStore(orgId = 'org-1') {
  return makeStore({
    auth: {
      status: 'signedIn',
      user: TEST_USER,
      accessToken: 'access-1',
      coreToken: 'core-1',
      recovery: false,
      notice: null,
    },
    org: { currentOrgId: orgId },
  });
}

export function testOrg(overrides: Partial<Organization> = {}): Organization {
  return {
    id: 'org-1',
    name: 'Acme',
    profile: { contactEmail: 'team@acme.test', website: null, description: null, logo: null },
    role: 'admin',
    requireTwoFactor: false,
    createdAt: '2026-11-01T10:00:00Z',
    updatedAt: '2026-11-01T10:00:00Z',
    ...overrides,
  };
}

export function testApp(overrides: Partial<App> = {}): App {
  return {
    packageName: 'com.acme.weather',
    orgId: 'org-1',
    developerId: TEST_USER.id,
    name: 'Weather',
    description: 'Forecasts on your glasses',
    onboardingInstructions: '',
    publicUrl: 'https://weather.acme.test',
    logoURL: 'https://portal.test/api/images/0b5c6a3e-7f1d-4c1e-9a8b-2f0e3d4c5b6a',
    webviewURL: null,
    isPublic: false,
    appStoreStatus: 'DEVELOPMENT',
    appType: 'background',
    createdAt: '2026-11-10T10:00:00Z',
    updatedAt: '2026-11-10T10:00:00Z',
    reviewNotes: null,
    reviewedBy: null,
    reviewedAt: null,
    tools: [],
    settings: [],
    hardwareRequirements: [],
    permissions: [],
    sharedWithOrganization: false,
    sharedWithEmails: [],
    ...overrides,
  };
}

/** Serves `GET /api/orgs` with these organizations. */
export function serveOrgs(orgs: Organization[] = [testOrg()]) {
  server.use(
    http.get('*/api/orgs', () =>
      HttpResponse.json({ success: true, data: orgs, personalOrgCreated: false }),
    ),
  );
}

export interface SentRequest {
  method: string;
  path: string;
  orgId: string | null;
  auth: string | null;
  body: unknown;
}

/** Records a request for the test to look at. */
export async function recordRequest(request: Request, into: SentRequest[]) {
  const text = request.method === 'GET' || request.method === 'DELETE' ? '' : await request.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  into.push({
    method: request.method,
    path: new URL(request.url).pathname,
    orgId: request.headers.get('x-org-id'),
    auth: request.headers.get('Authorization'),
    body,
  });
}
