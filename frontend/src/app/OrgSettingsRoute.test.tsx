import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { serveOrgs, signedInStore, testApp } from '../testing/apps';
import { renderWithProviders } from '../testing/render';
import { server } from '../testing/server';
import { OrgSettingsRoute } from './OrgSettingsRoute';

/** The current organization's apps, as `GET /api/dev/apps` answers them. */
function serveApps(count: number) {
  server.use(
    http.get('*/api/dev/apps', () =>
      HttpResponse.json(
        Array.from({ length: count }, (_, i) =>
          testApp({ packageName: `com.acme.app${String(i)}`, name: `App ${String(i)}` }),
        ),
      ),
    ),
  );
}

describe('deleting an organization on Organization Settings', { timeout: 20000 }, () => {
  it('says an organization that owns apps must be emptied first, and disables Delete', async () => {
    serveOrgs();
    serveApps(2);
    renderWithProviders(<OrgSettingsRoute />, { store: signedInStore() });

    const blocked = await screen.findByText(
      'Acme owns 2 apps: move them to another organization or delete them first.',
    );
    const remove = screen.getByRole('button', { name: 'Delete Organization' });
    expect(remove).toBeDisabled();
    // The reason is the button's description, for whoever reaches it with a screen reader.
    expect(remove).toHaveAccessibleDescription(/Acme owns 2 apps/);
    expect(blocked).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'My Apps' })).toHaveAttribute('href', '/apps');
  });

  it('names one app as such', async () => {
    serveOrgs();
    serveApps(1);
    renderWithProviders(<OrgSettingsRoute />, { store: signedInStore() });
    expect(
      await screen.findByText(
        'Acme owns an app: move it to another organization or delete it first.',
      ),
    ).toBeInTheDocument();
  });

  it('waits for the apps before offering Delete, then offers it for an organization without any', async () => {
    serveOrgs();
    server.use(
      http.get('*/api/dev/apps', async () => {
        await delay(100);
        return HttpResponse.json([]);
      }),
    );
    const { user } = renderWithProviders(<OrgSettingsRoute />, { store: signedInStore() });

    const remove = await screen.findByRole('button', { name: 'Delete Organization' });
    expect(remove).toBeDisabled();
    await waitFor(() => {
      expect(remove).toBeEnabled();
    });
    expect(screen.queryByText(/Acme owns/)).not.toBeInTheDocument();
    await user.click(remove);
    expect(await screen.findByRole('dialog', { name: 'Delete Acme?' })).toBeInTheDocument();
  });

  it('leaves it to the server when the apps cannot be read', async () => {
    serveOrgs();
    server.use(
      http.get('*/api/dev/apps', () =>
        HttpResponse.json(
          { error: 'The database is unavailable.', code: 'UNAVAILABLE' },
          { status: 503 },
        ),
      ),
      http.delete('*/api/orgs/:orgId', () =>
        HttpResponse.json(
          { error: "Move or delete this organization's apps first", code: 'CONFLICT' },
          { status: 409 },
        ),
      ),
    );
    const { user } = renderWithProviders(<OrgSettingsRoute />, { store: signedInStore() });

    const remove = await screen.findByRole('button', { name: 'Delete Organization' });
    await waitFor(() => {
      expect(remove).toBeEnabled();
    });
    await user.click(remove);
    const dialog = await screen.findByRole('dialog', { name: 'Delete Acme?' });
    await user.type(within(dialog).getByLabelText('Type Acme to confirm'), 'Acme');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(
      await within(dialog).findByText("Move or delete this organization's apps first"),
    ).toBeInTheDocument();
  });
});
