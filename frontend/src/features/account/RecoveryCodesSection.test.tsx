import { screen, within } from '@testing-library/react';
import { AuthApiError, type GoTrueClient } from '@supabase/auth-js';
import { describe, expect, it, vi } from 'vitest';

import { renderWithProviders } from '../../testing/render';
import { RecoveryCodesSection } from './RecoveryCodesSection';

const CODES = Array.from({ length: 10 }, (_, i) => `code${i}aaaabbbbccc`.slice(0, 16));
const NEW_CODES = Array.from({ length: 10 }, (_, i) => `new${i}xxxxyyyyzzzz`.slice(0, 16));

function notFound() {
  return new AuthApiError('Factor not found', 404, 'mfa_factor_not_found');
}

/** An auth client whose recovery codes start as `status` (`null`: none) and whose account has `totp` apps. */
function fakeClient(status: { total: number; remaining: number } | null, totp: number) {
  const totpFactors = Array.from({ length: totp }, (_, i) => ({
    id: `t${i}`,
    factor_type: 'totp',
    status: 'verified',
  }));
  const recoveryCodes = {
    getStatus: vi
      .fn()
      .mockResolvedValue(
        status
          ? { data: { id: 'set-1', type: 'recovery_code', ...status }, error: null }
          : { data: null, error: notFound() },
      ),
    generate: vi.fn().mockResolvedValue({
      data: { id: 'set-1', type: 'recovery_code', total: 10, codes: CODES },
      error: null,
    }),
    regenerate: vi.fn().mockResolvedValue({
      data: { id: 'set-1', type: 'recovery_code', total: 10, codes: NEW_CODES },
      error: null,
    }),
  };
  const listFactors = vi.fn().mockResolvedValue({
    data: {
      all: [
        ...totpFactors,
        // The set is one of the account's factors (Supabase's `recovery_code` type).
        ...(status ? [{ id: 'set-1', factor_type: 'recovery_code', status: 'verified' }] : []),
      ],
      totp: totpFactors,
      recovery_code: [],
    },
    error: null,
  });
  const client = {
    mfa: {
      recoveryCodes,
      listFactors,
    },
    onAuthStateChange: vi.fn(() => ({ data: { subscription: { unsubscribe: vi.fn() } } })),
  };
  return { client: client as unknown as GoTrueClient, recoveryCodes, listFactors };
}

describe('RecoveryCodesSection', () => {
  it('asks for an authenticator app first when the account has none', async () => {
    const { client } = fakeClient(null, 0);
    renderWithProviders(<RecoveryCodesSection client={client} />);
    expect(await screen.findByText(/Add an authenticator app first/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Make recovery codes' })).toBeNull();
  });

  it('makes the codes, shows them once grouped by four, then only how many are left', async () => {
    const { client, recoveryCodes } = fakeClient(null, 1);
    const { user } = renderWithProviders(<RecoveryCodesSection client={client} />);
    await user.click(await screen.findByRole('button', { name: 'Make recovery codes' }));
    const list = await screen.findByRole('list', { name: 'Your new recovery codes' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(10);
    expect(within(list).getByText('code-0aaa-abbb-bccc')).toBeInTheDocument();
    expect(recoveryCodes.generate).toHaveBeenCalledTimes(1);
    expect(screen.getByText(/10 of 10 codes unused/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'I have saved them' }));
    expect(screen.queryByRole('list', { name: 'Your new recovery codes' })).toBeNull();
  });

  it('makes new codes only after asking, and warns when few are left', async () => {
    const { client, recoveryCodes } = fakeClient({ total: 10, remaining: 2 }, 1);
    const { user } = renderWithProviders(<RecoveryCodesSection client={client} />);
    expect(
      await screen.findByText(/2 of 10 codes unused\. Make new ones before you run out\./),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Make new codes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Make new recovery codes?' });
    expect(recoveryCodes.regenerate).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole('button', { name: 'Make new codes' }));
    const list = await screen.findByRole('list', { name: 'Your new recovery codes' });
    expect(within(list).getByText('new0-xxxx-yyyy-zzzz')).toBeInTheDocument();
    expect(recoveryCodes.regenerate).toHaveBeenCalledTimes(1);
  });

  it('shows a refusal and a load failure with a retry', async () => {
    const { client, recoveryCodes } = fakeClient(null, 1);
    recoveryCodes.generate.mockResolvedValueOnce({
      data: null,
      error: new AuthApiError('AAL2 required', 403, 'insufficient_aal'),
    });
    const { user } = renderWithProviders(<RecoveryCodesSection client={client} />);
    await user.click(await screen.findByRole('button', { name: 'Make recovery codes' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/Confirm it’s you/);

    const failing = fakeClient({ total: 10, remaining: 10 }, 1);
    failing.recoveryCodes.getStatus.mockResolvedValue({
      data: null,
      error: new AuthApiError('boom', 500, 'unexpected_failure'),
    });
    renderWithProviders(<RecoveryCodesSection client={failing.client} />);
    expect(await screen.findByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('asks for the set only when the factors list one (the status answers 404 without a set)', async () => {
    const without = fakeClient(null, 1);
    renderWithProviders(<RecoveryCodesSection client={without.client} />);
    expect(await screen.findByRole('button', { name: 'Make recovery codes' })).toBeInTheDocument();
    expect(without.listFactors).toHaveBeenCalled();
    expect(without.recoveryCodes.getStatus).not.toHaveBeenCalled();

    const withSet = fakeClient({ total: 10, remaining: 7 }, 1);
    renderWithProviders(<RecoveryCodesSection client={withSet.client} />);
    expect(await screen.findByText(/7 of 10 codes unused/)).toBeInTheDocument();
    expect(withSet.recoveryCodes.getStatus).toHaveBeenCalledTimes(1);
  });

  it('shows no set when it went between reading the factors and its status', async () => {
    const { client, recoveryCodes } = fakeClient({ total: 10, remaining: 10 }, 1);
    recoveryCodes.getStatus.mockResolvedValue({ data: null, error: notFound() });
    renderWithProviders(<RecoveryCodesSection client={client} />);
    expect(await screen.findByRole('button', { name: 'Make recovery codes' })).toBeInTheDocument();
  });

  it('shows a failure to read the factors with a retry', async () => {
    const { client, listFactors } = fakeClient(null, 1);
    listFactors.mockResolvedValue({
      data: null,
      error: new AuthApiError('boom', 500, 'unexpected_failure'),
    });
    renderWithProviders(<RecoveryCodesSection client={client} />);
    expect(await screen.findByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
