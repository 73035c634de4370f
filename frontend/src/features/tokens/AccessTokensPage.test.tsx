import { screen, waitFor, within } from '@testing-library/react';
import type { GoTrueClient } from '@supabase/auth-js';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { AccessToken, CreatedAccessToken } from '../../api/types';
import { signedIn } from '../../session/authSlice';
import { WithAuthClient } from '../../testing/authClient';
import {
  recordRequest,
  serveOrgs,
  signedInStore,
  testOrg,
  TEST_USER,
  type SentRequest,
} from '../../testing/apps';
import { assuranceOf } from '../../testing/identity';
import { renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';
import { AccessTokensPage } from './AccessTokensPage';

const DAY = 24 * 60 * 60 * 1000;
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const SECRET = 'dpt_0123456789abcdefghijklmnopqrstuvwxyzABCD_x1y2z3';

function token(overrides: Partial<AccessToken> = {}): AccessToken {
  return {
    id: '5a1c6f1e-0000-4000-8000-000000000001',
    name: 'GitHub Actions deploy',
    orgId: 'org-1',
    scopes: ['apps:read', 'apps:publish'],
    status: 'active',
    createdAt: iso(-2 * DAY),
    expiresAt: iso(12 * DAY + 3_600_000),
    revokedAt: null,
    lastUsedAt: null,
    lastUsedIp: null,
    ...overrides,
  };
}

/**
 * The fake server's tokens; `POST` makes one (`answer` overrides its reply), `DELETE` revokes one, `POST
 * revoke-all` revokes every active one (`answerRevokeAllNext` overrides its reply).
 */
function serveTokens(initial: AccessToken[] = []) {
  let tokens = [...initial];
  const sent: SentRequest[] = [];
  const replies: (() => Response)[] = [];
  const revokeAllReplies: (() => Response)[] = [];
  server.use(
    http.post('*/api/dev/tokens/revoke-all', async ({ request }) => {
      await recordRequest(request, sent);
      const reply = revokeAllReplies.shift();
      if (reply) return reply();
      const active = tokens.filter((t) => t.status === 'active').length;
      tokens = tokens.map((t) =>
        t.status === 'active' ? { ...t, status: 'revoked' as const, revokedAt: iso(0) } : t,
      );
      return HttpResponse.json({ revoked: active });
    }),
    http.get('*/api/dev/tokens', () => HttpResponse.json({ tokens })),
    http.post('*/api/dev/tokens', async ({ request }) => {
      await recordRequest(request.clone(), sent);
      const reply = replies.shift();
      if (reply) return reply();
      const body = (await request.json()) as {
        name: string;
        orgId: string | null;
        scopes: AccessToken['scopes'];
        expiresInDays: number;
      };
      const listed = token({
        id: `5a1c6f1e-0000-4000-8000-00000000010${String(tokens.length)}`,
        name: body.name,
        orgId: body.orgId,
        scopes: body.scopes,
        createdAt: iso(0),
        expiresAt: iso(body.expiresInDays * DAY),
      });
      const made: CreatedAccessToken = { ...listed, token: SECRET };
      tokens = [listed, ...tokens];
      return HttpResponse.json(made, { status: 201 });
    }),
    http.delete('*/api/dev/tokens/:id', async ({ request, params }) => {
      await recordRequest(request, sent);
      const found = tokens.find((t) => t.id === params.id);
      if (!found) return HttpResponse.json({ error: 'No such token' }, { status: 404 });
      if (found.status === 'revoked') {
        return HttpResponse.json(
          { error: 'This access token was revoked already.', code: 'ALREADY_REVOKED' },
          { status: 409 },
        );
      }
      const revoked = { ...found, status: 'revoked' as const, revokedAt: iso(0) };
      tokens = tokens.map((t) => (t.id === found.id ? revoked : t));
      return HttpResponse.json(revoked);
    }),
  );
  return {
    sent,
    posts: () => sent.filter((r) => r.method === 'POST'),
    /** The next `POST` answers this. */
    answerNext: (reply: () => Response) => {
      replies.push(reply);
    },
    /** The next `POST revoke-all` answers this. */
    answerRevokeAllNext: (reply: () => Response) => {
      revokeAllReplies.push(reply);
    },
  };
}

function renderPage(client?: GoTrueClient, store = signedInStore()) {
  return renderWithProviders(
    client ? (
      <WithAuthClient client={client}>
        <AccessTokensPage />
      </WithAuthClient>
    ) : (
      <AccessTokensPage />
    ),
    { store },
  );
}

beforeEach(() => {
  serveOrgs([testOrg(), testOrg({ id: 'org-2', name: 'Globex', role: 'member' })]);
});

afterEach(() => {
  window.sessionStorage.clear();
});

describe('Access Tokens page', () => {
  it('shows a skeleton while the tokens load', async () => {
    server.use(http.get('*/api/dev/tokens', () => new Promise<never>(() => undefined)));
    renderPage();
    expect(await screen.findByLabelText('Loading your access tokens')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Access Tokens' })).toBeInTheDocument();
  });

  it('says what tokens are for when there is none, with a way to create one', async () => {
    serveTokens();
    const { user } = renderPage();
    expect(
      await screen.findByRole('heading', { name: 'No access tokens yet' }),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/lets a script, a CI job or the devportal command-line tool/),
    ).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Create token' }));
    expect(await screen.findByRole('dialog', { name: 'Create access token' })).toBeInTheDocument();
  });

  it('says when the list could not be loaded, and loads it again on Retry', async () => {
    let fail = true;
    server.use(
      http.get('*/api/dev/tokens', () =>
        fail
          ? HttpResponse.json({ error: 'The database is unavailable.' }, { status: 503 })
          : HttpResponse.json({ tokens: [token()] }),
      ),
    );
    const { user } = renderPage();
    expect(await screen.findByText('The database is unavailable.')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('GitHub Actions deploy')).toBeInTheDocument();
  });

  it('lists each token with its organization, scopes, status, expiry and last use', async () => {
    serveTokens([
      token({
        lastUsedAt: '2026-11-27T12:00:00Z',
        lastUsedIp: '203.0.113.9',
      }),
      token({
        id: '5a1c6f1e-0000-4000-8000-000000000002',
        name: 'Laptop',
        orgId: null,
        scopes: ['apps:read'],
        status: 'expired',
        expiresAt: iso(-DAY),
      }),
      token({
        id: '5a1c6f1e-0000-4000-8000-000000000003',
        name: 'Old CI',
        orgId: 'org-2',
        status: 'revoked',
        revokedAt: iso(-DAY),
      }),
    ]);
    renderPage();
    const table = await screen.findByRole('table', { name: 'Your access tokens' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(4);
    const [, ci, laptop, old] = rows as [HTMLElement, HTMLElement, HTMLElement, HTMLElement];
    expect(within(ci).getByText('Acme')).toBeInTheDocument();
    expect(within(ci).getByText('apps:read')).toBeInTheDocument();
    expect(within(ci).getByText('apps:publish')).toBeInTheDocument();
    expect(within(ci).getByText('Active')).toBeInTheDocument();
    expect(within(ci).getByText('expires in 12 days')).toBeInTheDocument();
    expect(within(ci).getByText(/from 203\.0\.113\.9/)).toBeInTheDocument();
    expect(within(ci).getByRole('button', { name: 'Revoke GitHub Actions deploy' })).toBeVisible();
    expect(within(laptop).getByText('All your organizations')).toBeInTheDocument();
    expect(within(laptop).getByText('Expired')).toBeInTheDocument();
    expect(within(laptop).getByText('expired')).toBeInTheDocument();
    expect(within(laptop).getByText('Never used')).toBeInTheDocument();
    expect(within(old).getByText('Globex')).toBeInTheDocument();
    expect(within(old).getByText('Revoked')).toBeInTheDocument();
    // A revoked token has nothing left to revoke.
    expect(within(old).queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
  });

  it('revokes a token after asking, and shows it revoked', async () => {
    const api = serveTokens([token()]);
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Revoke GitHub Actions deploy' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke this access token?' });
    expect(within(dialog).getByText(/stops working at once/)).toBeInTheDocument();
    expect(api.sent).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(
      await screen.findByText('“GitHub Actions deploy” was revoked: it no longer works.'),
    ).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(api.sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /api/dev/tokens/5a1c6f1e-0000-4000-8000-000000000001',
    ]);
    const table = screen.getByRole('table', { name: 'Your access tokens' });
    expect(await within(table).findByText('Revoked')).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
  });

  it('keeps a token when the revocation is cancelled', async () => {
    const api = serveTokens([token()]);
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Revoke GitHub Actions deploy' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke this access token?' });
    await user.click(within(dialog).getByRole('button', { name: 'Keep' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(api.sent).toEqual([]);
  });

  it('says why a revocation was refused', async () => {
    serveTokens([token()]);
    server.use(
      http.delete('*/api/dev/tokens/:id', () =>
        HttpResponse.json(
          { error: 'This access token was revoked already.', code: 'ALREADY_REVOKED' },
          { status: 409 },
        ),
      ),
    );
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Revoke GitHub Actions deploy' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke this access token?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This access token was revoked already.',
    );
  });
});

describe('revoking all tokens', () => {
  const twoActive = () => [
    token(),
    token({ id: '5a1c6f1e-0000-4000-8000-000000000002', name: 'Laptop', orgId: null }),
    token({
      id: '5a1c6f1e-0000-4000-8000-000000000003',
      name: 'Old CI',
      status: 'revoked',
      revokedAt: iso(-DAY),
    }),
  ];

  it('offers Revoke all only while a token is active', async () => {
    serveTokens([
      token({ status: 'revoked', revokedAt: iso(-DAY) }),
      token({
        id: '5a1c6f1e-0000-4000-8000-000000000002',
        name: 'Laptop',
        status: 'expired',
        expiresAt: iso(-DAY),
      }),
    ]);
    renderPage();
    expect(await screen.findByRole('table', { name: 'Your access tokens' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create token' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Revoke all' })).not.toBeInTheDocument();
  });

  it('says how many tokens stop working and that scripts using them fail, then revokes them all', async () => {
    const api = serveTokens(twoActive());
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Revoke all' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke all your access tokens?' });
    expect(dialog).toHaveTextContent(
      'Your 2 active access tokens stop working at once: scripts, CI jobs and the command-line tool that use them will fail',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Revoke all' }));
    expect(
      await screen.findByText('2 access tokens were revoked: they no longer work.'),
    ).toBeVisible();
    expect(api.sent.filter((r) => r.method === 'POST').map((r) => [r.path, r.auth])).toEqual([
      ['/api/dev/tokens/revoke-all', 'Bearer core-1'],
    ]);
    // The list is read again: nothing is active, so nothing is left to revoke all of.
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    const table = screen.getByRole('table', { name: 'Your access tokens' });
    await waitFor(() => {
      expect(within(table).queryByText('Active')).not.toBeInTheDocument();
    });
    expect(screen.queryByRole('button', { name: 'Revoke all' })).not.toBeInTheDocument();
  });

  it('keeps every token when the dialog is cancelled', async () => {
    const api = serveTokens(twoActive());
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Revoke all' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke all your access tokens?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(api.sent).toEqual([]);
  });

  it('shows the server’s message when Revoke all is refused', async () => {
    const api = serveTokens(twoActive());
    api.answerRevokeAllNext(() =>
      HttpResponse.json(
        { error: 'An access token cannot revoke tokens.', code: 'TOKEN_NOT_ALLOWED' },
        { status: 403 },
      ),
    );
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Revoke all' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke all your access tokens?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke all' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'An access token cannot revoke tokens.',
    );
  });
});

describe('creating a token', () => {
  it('checks the name and the scopes before asking the server', async () => {
    const api = serveTokens();
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Create token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create access token' });
    // apps:read is chosen at first: none left.
    await user.click(within(dialog).getByRole('checkbox', { name: /apps:read/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Create token' }));
    expect(within(dialog).getByText('Name the token after what will use it.')).toBeVisible();
    expect(within(dialog).getByText('Choose at least one scope.')).toBeVisible();
    expect(within(dialog).getByRole('textbox', { name: /Name/ })).toHaveFocus();

    await user.click(within(dialog).getByRole('textbox', { name: /Name/ }));
    await user.paste('x'.repeat(101));
    await user.click(within(dialog).getByRole('button', { name: 'Create token' }));
    expect(within(dialog).getByText('At most 100 characters.')).toBeVisible();
    expect(api.posts()).toEqual([]);
  });

  it('offers the organizations, every one of them, and expiries up to a year (90 days at first)', async () => {
    serveTokens();
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Create token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create access token' });
    expect(within(dialog).getByRole('combobox', { name: 'Organization' })).toHaveTextContent(
      'Acme',
    );
    const expiry = within(dialog).getByRole('combobox', { name: 'Expires after' });
    expect(expiry).toHaveTextContent('90 days');
    await user.click(within(dialog).getByRole('combobox', { name: 'Organization' }));
    const orgs = await screen.findByRole('listbox');
    expect(
      within(orgs)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Acme', 'Globex', 'All your organizations']);
    await user.click(within(orgs).getByRole('option', { name: 'All your organizations' }));
    await user.click(expiry);
    const days = await screen.findByRole('listbox');
    expect(
      within(days)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['7 days', '30 days', '60 days', '90 days (recommended)', '180 days', '365 days']);
    expect(within(days).queryByText(/never/i)).not.toBeInTheDocument();
  });

  it('creates a token, shows it once with a copy button and how to use it, then lists it', async () => {
    const api = serveTokens();
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Create token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create access token' });
    await user.type(within(dialog).getByRole('textbox', { name: /Name/ }), '  Deploy bot ');
    await user.click(within(dialog).getByRole('checkbox', { name: /apps:publish/ }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Expires after' }));
    await user.click(await screen.findByRole('option', { name: '30 days' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create token' }));

    const shown = await screen.findByRole('dialog', { name: 'Your new access token' });
    expect(api.posts().map((r) => r.body)).toEqual([
      {
        name: 'Deploy bot',
        orgId: 'org-1',
        scopes: ['apps:read', 'apps:publish'],
        expiresInDays: 30,
      },
    ]);
    expect(api.posts()[0]?.auth).toBe('Bearer core-1');
    expect(within(shown).getByText('Copy it now: it will not be shown again')).toBeVisible();
    expect(within(shown).getByTestId('new-token')).toHaveValue(SECRET);
    expect(within(shown).getByTestId('new-token')).toHaveAttribute('readonly');
    expect(within(shown).getByText(/devportal login --url http/)).toBeInTheDocument();
    expect(within(shown).getByText(/Authorization: Bearer dpt_…/)).toBeInTheDocument();
    expect(within(shown).getByText(/x-org-id: org-1/)).toBeInTheDocument();

    await user.click(within(shown).getByRole('button', { name: 'Copy token' }));
    // user-event's clipboard stands in for the browser's.
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(await within(shown).findByRole('button', { name: 'Copied' })).toBeVisible();
    expect(within(shown).getByText('Copied to the clipboard.')).toBeVisible();

    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    const table = await screen.findByRole('table', { name: 'Your access tokens' });
    expect(within(table).getByText('Deploy bot')).toBeInTheDocument();
    // Shown once: nothing on the page holds the secret any more, and a new dialog starts empty.
    expect(document.body.textContent).not.toContain(SECRET);
    expect(screen.queryByDisplayValue(SECRET)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create token' }));
    const again = await screen.findByRole('dialog', { name: 'Create access token' });
    expect(within(again).getByRole('textbox', { name: /Name/ })).toHaveValue('');
  });

  it('says when the browser does not allow copying', async () => {
    serveTokens();
    const { user } = renderPage();
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValueOnce(new Error('denied'));
    await user.click(await screen.findByRole('button', { name: 'Create token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create access token' });
    await user.type(within(dialog).getByRole('textbox', { name: /Name/ }), 'CI');
    await user.click(within(dialog).getByRole('button', { name: 'Create token' }));
    const shown = await screen.findByRole('dialog', { name: 'Your new access token' });
    await user.click(within(shown).getByRole('button', { name: 'Copy token' }));
    expect(await within(shown).findByText(/did not allow copying/)).toBeVisible();
  });

  it('shows the server’s field errors on their fields', async () => {
    const api = serveTokens();
    api.answerNext(() =>
      HttpResponse.json(
        {
          error: 'Some fields are not valid.',
          code: 'VALIDATION',
          fields: {
            name: 'You already have an active token with this name.',
            expiresInDays: 'At most 365 days.',
          },
        },
        { status: 400 },
      ),
    );
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Create token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create access token' });
    await user.type(within(dialog).getByRole('textbox', { name: /Name/ }), 'CI');
    await user.click(within(dialog).getByRole('button', { name: 'Create token' }));
    expect(await within(dialog).findByText('Some fields are not valid.')).toBeVisible();
    const name = within(dialog).getByRole('textbox', { name: /Name/ });
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveAccessibleDescription('You already have an active token with this name.');
    expect(within(dialog).getByText('At most 365 days.')).toBeVisible();
    // What was typed stays.
    expect(name).toHaveValue('CI');
  });

  it('on MFA_REQUIRED leads to the challenge step and keeps what was typed for the way back', async () => {
    const api = serveTokens();
    api.answerNext(() =>
      HttpResponse.json(
        {
          error: 'Confirm it’s you with your second factor to create an access token.',
          code: 'MFA_REQUIRED',
        },
        { status: 403 },
      ),
    );
    const first = renderPage();
    await first.user.click(await screen.findByRole('button', { name: 'Create token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create access token' });
    await first.user.type(within(dialog).getByRole('textbox', { name: /Name/ }), 'Release job');
    await first.user.click(within(dialog).getByRole('checkbox', { name: /apps:keys/ }));
    await first.user.click(within(dialog).getByRole('button', { name: 'Create token' }));
    const link = await within(dialog).findByRole('link', { name: 'Confirm it’s you' });
    expect(link).toHaveAttribute('href', '/signin/mfa?next=%2Faccount%2Ftokens');
    // The session guard takes the user there by itself.
    expect(first.store.getState().auth.mfaRequired).toBe(true);
    first.unmount();

    // Back from the challenge step: the dialog opens again with what was typed.
    serveTokens();
    const back = renderPage();
    const reopened = await screen.findByRole('dialog', { name: 'Create access token' });
    expect(within(reopened).getByRole('textbox', { name: /Name/ })).toHaveValue('Release job');
    expect(within(reopened).getByRole('checkbox', { name: /apps:keys/ })).toBeChecked();
    await back.user.click(within(reopened).getByRole('button', { name: 'Cancel' }));
    expect(window.sessionStorage.length).toBe(0);
  });

  it('on RECENT_SIGN_IN_NEEDED asks to sign in again, then creates the token with what was typed', async () => {
    const api = serveTokens();
    api.answerNext(() =>
      HttpResponse.json(
        {
          error:
            'Sign in again to create an access token: your last sign-in was more than 10 minutes ago.',
          code: 'RECENT_SIGN_IN_NEEDED',
        },
        { status: 403 },
      ),
    );
    const store = signedInStore();
    const signInWithPassword = vi.fn(() => {
      // The identity client's new session reaches the store as a new credential.
      setTimeout(() => {
        store.dispatch(signedIn({ user: TEST_USER, accessToken: 'access-2', coreToken: 'core-2' }));
      }, 20);
      return Promise.resolve({ data: {}, error: null });
    });
    const client = {
      ...assuranceOf('aal1'),
      signInWithPassword,
      signOut: vi.fn(),
    } as unknown as GoTrueClient;
    const { user } = renderPage(client, store);
    await user.click(await screen.findByRole('button', { name: 'Create token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create access token' });
    await user.type(within(dialog).getByRole('textbox', { name: /Name/ }), 'Nightly');
    await user.click(within(dialog).getByRole('button', { name: 'Create token' }));
    expect(await within(dialog).findByText('Sign in again to create a token')).toBeVisible();
    expect(store.getState().auth.mfaRequired).toBeFalsy();

    await user.click(within(dialog).getByRole('button', { name: 'Sign in again' }));
    await user.type(within(dialog).getByLabelText('Current password'), 'correct horse');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm password' }));
    expect(signInWithPassword).toHaveBeenCalledWith({
      email: TEST_USER.email,
      password: 'correct horse',
    });
    const shown = await screen.findByRole('dialog', { name: 'Your new access token' });
    expect(within(shown).getByTestId('new-token')).toHaveValue(SECRET);
    expect(api.posts().map((r) => [r.auth, (r.body as { name: string }).name])).toEqual([
      ['Bearer core-1', 'Nightly'],
      ['Bearer core-2', 'Nightly'],
    ]);
  });
});
