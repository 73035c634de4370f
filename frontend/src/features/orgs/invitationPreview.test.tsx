import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { makeStore } from '../../app/store';
import { authSlice } from '../../session/authSlice';
import type { InvitePreview } from '../../api/types';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';

vi.setConfig({ testTimeout: 20_000 });

const OPEN: InvitePreview = {
  organizationName: 'Acme',
  inviter: 'ada@example.com',
  emailHint: 'b\u2022\u2022\u2022@example.com',
  status: 'open',
  expiresAt: '2026-12-05T10:00:00Z',
};

/** `GET /api/invites/:token` answers `answer`; the tokens asked about are kept. */
function servePreview(answer: () => Response) {
  const asked: string[] = [];
  server.use(
    http.get('*/api/invites/:token', ({ params }) => {
      asked.push(String(params.token));
      return answer();
    }),
  );
  return asked;
}

const signedOut = () =>
  makeStore({ auth: { ...authSlice.getInitialState(), status: 'signedOut' } });

describe('an invitation link before sign-in', () => {
  it('names the organization, who invited and the invited address of an open invitation', async () => {
    const asked = servePreview(() => HttpResponse.json({ success: true, data: OPEN }));
    renderRoute('/invite/accept?token=tok-1', { store: signedOut() });
    const title = await screen.findByText('You have been invited to Acme');
    const notice = title.closest<HTMLElement>('.MuiAlert-root');
    if (!notice) throw new Error('the invitation is not in a notice');
    expect(notice).toHaveTextContent('ada@example.com invited you.');
    expect(within(notice).getByText('b•••@example.com')).toBeInTheDocument();
    expect(asked).toEqual(['tok-1']);
    expect(screen.getByRole('button', { name: 'Continue with Email' })).toBeEnabled();
  });

  it('says so while it checks the link', async () => {
    servePreview(() => new Promise<Response>(() => undefined) as unknown as Response);
    renderRoute('/signin?token=tok-slow', { store: signedOut() });
    expect(await screen.findByText('Checking your invitation...')).toBeInTheDocument();
  });

  it('says an unknown or cancelled link is invalid, and what to do, before sign-up', async () => {
    servePreview(() =>
      HttpResponse.json(
        { error: 'This invitation is invalid or has been cancelled', code: 'NOT_FOUND' },
        { status: 404 },
      ),
    );
    renderRoute('/signin?token=nope', { store: signedOut() });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This invitation link is invalid');
    expect(alert).toHaveTextContent('ask an admin of the organization to invite you again');
    expect(screen.queryByText(/You have been invited/)).not.toBeInTheDocument();
  });

  it('says an expired invitation has expired, and whom to ask for a new one', async () => {
    servePreview(() => HttpResponse.json({ success: true, data: { ...OPEN, status: 'expired' } }));
    renderRoute('/signin?token=old', { store: signedOut() });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This invitation has expired');
    expect(alert).toHaveTextContent('Ask ada@example.com to send you a new one.');
  });

  it('says a used invitation was used, naming an admin when the inviter has left', async () => {
    servePreview(() =>
      HttpResponse.json({ success: true, data: { ...OPEN, status: 'accepted', inviter: null } }),
    );
    renderRoute('/signin?token=used', { store: signedOut() });
    expect(await screen.findByText('This invitation has already been used')).toBeInTheDocument();
    expect(screen.getByText(/ask an admin of Acme to invite you again/)).toBeInTheDocument();
  });

  it('shows the limit’s message when too many links were checked', async () => {
    const limited =
      'Too many invitation links were checked from your network. Please try again later.';
    servePreview(() =>
      HttpResponse.json(
        { error: limited, code: 'RATE_LIMITED' },
        { status: 429, headers: { 'Retry-After': '60' } },
      ),
    );
    renderRoute('/signin?token=many', { store: signedOut() });
    expect(await screen.findByRole('alert')).toHaveTextContent(limited);
  });

  it('offers Retry when the check failed, and reads again', async () => {
    let calls = 0;
    servePreview(() => {
      calls += 1;
      return calls === 1
        ? HttpResponse.json({ error: 'Internal server error', code: 'INTERNAL' }, { status: 500 })
        : HttpResponse.json({ success: true, data: OPEN });
    });
    const { user } = renderRoute('/signin?token=flaky', { store: signedOut() });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Your invitation could not be checked right now.');
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('You have been invited to Acme')).toBeInTheDocument();
    await waitFor(() => {
      expect(calls).toBe(2);
    });
  });
});
