import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import type { AccessToken } from '../../api/types';
import { OrgSettingsRoute } from '../../app/OrgSettingsRoute';
import {
  recordRequest,
  serveOrgs,
  signedInStore,
  testOrg,
  type SentRequest,
} from '../../testing/apps';
import { renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';

const TITLE = 'Access tokens acting in this organization';

function orgToken(overrides: Partial<AccessToken> = {}): AccessToken {
  return {
    id: '6b2d7a2f-0000-4000-8000-000000000001',
    name: 'Deploy bot',
    orgId: 'org-1',
    scopes: ['apps:read', 'apps:write'],
    status: 'active',
    createdAt: '2026-11-20T10:00:00Z',
    expiresAt: new Date(Date.now() + 40 * 24 * 3_600_000).toISOString(),
    revokedAt: null,
    lastUsedAt: '2026-11-27T12:00:00Z',
    lastUsedIp: '198.51.100.4',
    ownerEmail: 'grace@example.com',
    ...overrides,
  };
}

/** The organization's tokens; `DELETE` revokes one. */
function serveOrgTokens(initial: AccessToken[]) {
  let tokens = [...initial];
  const sent: SentRequest[] = [];
  server.use(
    http.get('*/api/orgs/:orgId/tokens', ({ params }) =>
      params.orgId === 'org-1'
        ? HttpResponse.json({ tokens })
        : HttpResponse.json({ error: 'Not found' }, { status: 404 }),
    ),
    http.delete('*/api/orgs/:orgId/tokens/:id', async ({ request, params }) => {
      await recordRequest(request, sent);
      tokens = tokens.map((t) =>
        t.id === params.id ? { ...t, status: 'revoked' as const, revokedAt: t.createdAt } : t,
      );
      // The revoked token, as the server answers it (without its owner).
      const revoked = tokens.find((t) => t.id === params.id);
      return HttpResponse.json({ ...revoked, ownerEmail: undefined });
    }),
  );
  return sent;
}

describe(
  'the tokens acting in an organization, on Organization Settings',
  { timeout: 20000 },
  () => {
    it('shows its admins each token with its owner, scopes, last use and expiry, and revokes one after asking', async () => {
      serveOrgs();
      const sent = serveOrgTokens([
        orgToken(),
        orgToken({
          id: '6b2d7a2f-0000-4000-8000-000000000002',
          name: 'Laptop',
          orgId: null,
          scopes: ['apps:read'],
          lastUsedAt: null,
          lastUsedIp: null,
          ownerEmail: 'ada@example.com',
        }),
      ]);
      const { user } = renderWithProviders(<OrgSettingsRoute />, { store: signedInStore() });

      const section = await screen.findByRole('region', { name: TITLE });
      const table = await within(section).findByRole('table', {
        name: 'Access tokens acting in Acme',
      });
      const [, deploy, laptop] = within(table).getAllByRole('row') as [
        HTMLElement,
        HTMLElement,
        HTMLElement,
      ];
      expect(within(deploy).getByText('grace@example.com')).toBeInTheDocument();
      expect(within(deploy).getByText('Deploy bot')).toBeInTheDocument();
      expect(within(deploy).getByText('apps:write')).toBeInTheDocument();
      expect(within(deploy).getByText(/from 198\.51\.100\.4/)).toBeInTheDocument();
      expect(within(deploy).getByText(/expires in (39|40) days/)).toBeInTheDocument();
      expect(within(laptop).getByText('ada@example.com')).toBeInTheDocument();
      expect(within(laptop).getByText('Never used')).toBeInTheDocument();

      await user.click(within(deploy).getByRole('button', { name: 'Revoke Deploy bot' }));
      const dialog = await screen.findByRole('dialog', { name: 'Revoke this access token?' });
      expect(dialog).toHaveTextContent('“Deploy bot” of grace@example.com stops working at once');
      await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
      expect(
        await within(section).findByText(
          '“Deploy bot” of grace@example.com was revoked: it no longer works.',
        ),
      ).toBeInTheDocument();
      expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
        'DELETE /api/orgs/org-1/tokens/6b2d7a2f-0000-4000-8000-000000000001',
      ]);
      await waitFor(() => {
        expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      });
      expect(await within(table).findByText('Revoked')).toBeInTheDocument();
      expect(
        within(table).queryByRole('button', { name: 'Revoke Deploy bot' }),
      ).not.toBeInTheDocument();
    });

    it('says when no token acts in the organization', async () => {
      serveOrgs();
      renderWithProviders(<OrgSettingsRoute />, { store: signedInStore() });
      const section = await screen.findByRole('region', { name: TITLE });
      expect(await within(section).findByText('No access token acts in Acme.')).toBeInTheDocument();
    });

    it('says when the list could not be loaded, with Retry', async () => {
      serveOrgs();
      let fail = true;
      server.use(
        http.get('*/api/orgs/:orgId/tokens', () =>
          fail
            ? HttpResponse.json({ error: 'The database is unavailable.' }, { status: 503 })
            : HttpResponse.json({ tokens: [orgToken()] }),
        ),
      );
      const { user } = renderWithProviders(<OrgSettingsRoute />, { store: signedInStore() });
      const section = await screen.findByRole('region', { name: TITLE });
      expect(await within(section).findByText('The database is unavailable.')).toBeInTheDocument();
      fail = false;
      await user.click(within(section).getByRole('button', { name: 'Retry' }));
      expect(await within(section).findByText('Deploy bot')).toBeInTheDocument();
    });

    it('is not shown to members, and their tokens are not asked for', async () => {
      serveOrgs([testOrg({ role: 'member' })]);
      let asked = false;
      server.use(
        http.get('*/api/orgs/:orgId/tokens', () => {
          asked = true;
          return HttpResponse.json({ error: 'Only admins' }, { status: 403 });
        }),
      );
      renderWithProviders(<OrgSettingsRoute />, { store: signedInStore() });
      expect(await screen.findByText('Contact an administrator to make changes.')).toBeVisible();
      expect(screen.queryByRole('region', { name: TITLE })).not.toBeInTheDocument();
      expect(asked).toBe(false);
    });
  },
);
