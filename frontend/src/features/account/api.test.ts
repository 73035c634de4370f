import { AuthApiError, type GoTrueClient } from '@supabase/auth-js';
import { describe, expect, it, vi } from 'vitest';

import { makeStore } from '../../app/store';
import { accountApi, accountErrorCode, accountErrorMessage, identityKey } from './api';

const totp = { id: 't1', factor_type: 'totp', status: 'verified' };

/** An auth client whose factor list is `factors` until `unenroll` removes one. */
function fakeClient() {
  let factors = [totp];
  const listFactors = vi.fn(() =>
    Promise.resolve({
      data: { all: factors, totp: factors, webauthn: [], recovery_code: [] },
      error: null,
    }),
  );
  const unenroll = vi.fn(({ factorId }: { factorId: string }) => {
    factors = factors.filter((f) => f.id !== factorId);
    return Promise.resolve({ data: { id: factorId }, error: null });
  });
  const enroll = vi.fn(() =>
    Promise.resolve({
      data: null,
      error: new AuthApiError('Sign in again', 401, 'reauthentication_needed'),
    }),
  );
  const client = { mfa: { listFactors, unenroll, enroll } } as unknown as GoTrueClient;
  return { client, listFactors, unenroll };
}

describe('accountApi', () => {
  it('names a client by one key, and another client by another', () => {
    const a = fakeClient().client;
    const b = fakeClient().client;
    expect(identityKey(a)).toBe(identityKey(a));
    expect(identityKey(a)).not.toBe(identityKey(b));
  });

  it('reads the factors through the client, and again once one is removed', async () => {
    const { client, listFactors, unenroll } = fakeClient();
    const store = makeStore();
    const key = identityKey(client);
    const subscription = store.dispatch(accountApi.endpoints.listFactors.initiate(key));
    const first = await subscription;
    expect(first.data?.totp.map((f) => f.id)).toEqual(['t1']);

    await store.dispatch(accountApi.endpoints.removeFactor.initiate({ key, factorId: 't1' }));
    expect(unenroll).toHaveBeenCalledWith({ factorId: 't1' });
    await vi.waitFor(() => {
      expect(accountApi.endpoints.listFactors.select(key)(store.getState()).data?.totp).toEqual([]);
    });
    expect(listFactors).toHaveBeenCalledTimes(2);
    subscription.unsubscribe();
  });

  it('answers a refusal with its message and the identity service code', async () => {
    const { client } = fakeClient();
    const store = makeStore();
    const result = await store.dispatch(
      accountApi.endpoints.enrollTotp.initiate({ key: identityKey(client), friendlyName: 'App' }),
    );
    expect(accountErrorCode(result.error)).toBe('reauthentication_needed');
    expect(accountErrorMessage(result.error)).toBe('Sign in again');
  });

  it('answers a failure, not a throw, when the client throws or is unknown', async () => {
    const { client, listFactors } = fakeClient();
    listFactors.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    const store = makeStore();
    const thrown = await store.dispatch(
      accountApi.endpoints.listFactors.initiate(identityKey(client)),
    );
    expect(accountErrorMessage(thrown.error)).toBe('Could not read your second factors.');
    const unknown = await store.dispatch(accountApi.endpoints.listFactors.initiate('nobody'));
    expect(accountErrorMessage(unknown.error)).toBe('Could not read your second factors.');
  });
});
