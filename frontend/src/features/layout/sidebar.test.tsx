import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { signedInStore, testOrg } from '../../testing/apps';
import { identitySession } from '../../testing/identity';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';
import { IDENTITY_SESSION_KEY } from '../../session/storage';

vi.setConfig({ testTimeout: 30_000 });

describe('the sidebar of wide screens', () => {
  it('has a column that runs the full height of the page, in the sidebar’s own background', async () => {
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
    server.use(
      http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken: 'core-2' })),
      http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
      http.get('*/api/orgs', () =>
        HttpResponse.json({ success: true, data: [testOrg()], personalOrgCreated: false }),
      ),
      http.get('*/api/orgs/:orgId', () => HttpResponse.json({ success: true, data: testOrg() })),
      http.get('*/api/dev/apps', () => HttpResponse.json([])),
    );
    renderRoute('/dashboard', { store: signedInStore() });
    await screen.findByRole(
      'heading',
      { level: 1, name: 'Developer Dashboard' },
      { timeout: 15_000 },
    );

    const nav = screen.getByRole('navigation', { name: 'Main' });
    const paper = nav.closest<HTMLElement>('.MuiDrawer-paper');
    const column = nav.closest<HTMLElement>('.MuiDrawer-docked');
    if (!paper || !column) throw new Error('the sidebar is not the permanent drawer');
    const row = column.parentElement;
    if (!row) throw new Error('the sidebar has no row around it');

    // The row of the layout is at least as high as the window, and grows with the page.
    expect(getComputedStyle(row).display).toBe('flex');
    expect(getComputedStyle(row).minHeight).toBe('100dvh');
    // The sidebar's column stretches over the row's height (not just the window's, as the fixed sidebar
    // itself does)…
    expect(getComputedStyle(column).alignSelf).toBe('stretch');
    // …with the sidebar's background and edge, so that the colour does not stop where the window ends.
    const columnStyle = getComputedStyle(column);
    const paperStyle = getComputedStyle(paper);
    expect(columnStyle.backgroundColor).toContain('--mui-palette-background-paper');
    expect(columnStyle.backgroundColor).toBe(paperStyle.backgroundColor);
    expect(columnStyle.borderRightStyle).toBe('solid');
    expect(columnStyle.borderRightColor).toBe(paperStyle.borderRightColor);
    // The sidebar itself stays in place below the top bar while the page scrolls.
    expect(paperStyle.position).toBe('fixed');
    expect(paperStyle.top).toBe('64px');
  });
});
