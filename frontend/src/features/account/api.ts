import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { AuthError, Factor, GoTrueClient, PasskeyListItem } from '@supabase/auth-js';

import { baseApi } from '../../api/baseApi';
import type { AccountSession, SessionList } from '../../api/types';
import { authErrorMessage, ceremonyMessage } from './messages';

export type { AccountSession };

/**
 * The account's calls (PRODUCT.md §1a). The sessions are the product API's; the second factors, passkeys and
 * recovery codes are the identity service's, reached through its auth client (so that they work the same with
 * a hosted Supabase). A query names the client by its key (`identityKey(client)`): the cache holds plain data
 * only, and a page with another client reads afresh.
 */

/** A key naming one auth client in the cache (the client itself is not data to keep in the store). */
export type IdentityKey = string;

const clients = new Map<IdentityKey, WeakRef<GoTrueClient>>();
const keys = new WeakMap<GoTrueClient, IdentityKey>();

/** The key of `client`: the same for the same client, another for another. */
export function identityKey(client: GoTrueClient): IdentityKey {
  const known = keys.get(client);
  if (known) return known;
  const key = `identity-${String(clients.size + 1)}`;
  keys.set(client, key);
  clients.set(key, new WeakRef(client));
  return key;
}

/** An identity-service refusal as RTK Query carries it: the message to show and the service's code. */
type Refusal = Extract<FetchBaseQueryError, { status: 'CUSTOM_ERROR' }>;

const refusal = (message: string, code?: string): { error: Refusal } => ({
  error: { status: 'CUSTOM_ERROR', error: message, data: { code: code ?? null } },
});

const refused = (error: AuthError) => refusal(authErrorMessage(error), error.code);

/**
 * Runs `call` with the client that `key` names; a client that is gone, or a call that throws (the network),
 * answers a refusal with `failed` as its message.
 */
async function withClient<T>(
  key: IdentityKey,
  failed: string,
  call: (client: GoTrueClient) => Promise<{ data: T } | { error: Refusal }>,
): Promise<{ data: T } | { error: Refusal }> {
  const client = clients.get(key)?.deref();
  if (!client) return refusal(failed);
  try {
    return await call(client);
  } catch {
    return refusal(failed);
  }
}

/** The message to show for a failed account call, whichever API answered. */
export function accountErrorMessage(
  error: unknown,
  fallback = 'Something went wrong. Please try again.',
): string {
  if (typeof error === 'object' && error !== null && 'status' in error) {
    const failure = error as FetchBaseQueryError;
    if (failure.status === 'CUSTOM_ERROR') return failure.error;
  }
  return fallback;
}

/** The identity service's code of a failed account call (`reauthentication_needed`, …), if any. */
export function accountErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('data' in error)) return undefined;
  const { data } = error;
  if (typeof data !== 'object' || data === null || !('code' in data)) return undefined;
  const { code } = data;
  return typeof code === 'string' ? code : undefined;
}

/** The account's second factors as the identity service lists them. */
export interface FactorList {
  all: Factor[];
  totp: Factor[];
  webauthn: Factor[];
  recoveryCode: Factor[];
}

/** What the account's recovery codes are: none yet (`canMake` with an authenticator app), or a set. */
export type RecoveryCodesStatus =
  { kind: 'none'; canMake: boolean } | { kind: 'set'; total: number; remaining: number };

/** A TOTP factor being added: its secret is shown once, until a code of it is confirmed. */
export interface Enrolling {
  id: string;
  secret: string;
  uri: string;
}

async function readFactors(
  client: GoTrueClient,
): Promise<{ data: FactorList } | { error: Refusal }> {
  const { data, error } = await client.mfa.listFactors();
  if (error) return refused(error);
  return {
    data: {
      all: data.all,
      totp: data.totp,
      webauthn: data.webauthn,
      recoveryCode: data.recovery_code,
    },
  };
}

const LOAD_FAILED = 'Could not read your second factors.';

export const accountApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** The signed-in user's sessions (`/api/dev/auth/sessions`). */
    listSessions: build.query<AccountSession[], void>({
      query: () => '/api/dev/auth/sessions',
      transformResponse: (list: SessionList) => list.sessions,
      providesTags: ['Session'],
    }),
    /** Signs one session out at once. */
    signOutSession: build.mutation<void, string>({
      query: (id) => ({
        url: `/api/dev/auth/sessions/${encodeURIComponent(id)}`,
        method: 'DELETE',
      }),
      invalidatesTags: ['Session'],
    }),
    /** Signs every other session of the account out (the identity service's `signOut({ scope: 'others' })`). */
    signOutOtherSessions: build.mutation<null, IdentityKey>({
      queryFn: (key) =>
        withClient(key, 'The other sessions could not be signed out.', async (client) => {
          const { error } = await client.signOut({ scope: 'others' });
          return error ? refused(error) : { data: null };
        }),
      invalidatesTags: ['Session'],
    }),

    /** Every second factor of the account. Read afresh by each screen that shows them. */
    listFactors: build.query<FactorList, IdentityKey>({
      queryFn: (key) => withClient(key, LOAD_FAILED, readFactors),
      providesTags: ['Factor'],
      keepUnusedDataFor: 0,
    }),
    /** Starts adding an authenticator app; it counts once a code of it is verified. */
    enrollTotp: build.mutation<Enrolling, { key: IdentityKey; friendlyName: string }>({
      queryFn: ({ key, friendlyName }) =>
        withClient(key, 'The authenticator app could not be added.', async (client) => {
          const { data, error } = await client.mfa.enroll({ factorType: 'totp', friendlyName });
          if (error) return refused(error);
          return { data: { id: data.id, secret: data.totp.secret, uri: data.totp.uri } };
        }),
      invalidatesTags: ['Factor'],
    }),
    /**
     * Confirms a new authenticator app with a code of it. The session passes its second factor and the
     * account's other sessions that did not are signed out; recovery codes become possible.
     */
    verifyTotp: build.mutation<null, { key: IdentityKey; factorId: string; code: string }>({
      queryFn: ({ key, factorId, code }) =>
        withClient(key, 'The code could not be checked.', async (client) => {
          const { error } = await client.mfa.challengeAndVerify({ factorId, code });
          return error ? refused(error) : { data: null };
        }),
      invalidatesTags: ['Factor', 'RecoveryCodes', 'Session'],
    }),
    /** Removes a factor (an authenticator app, or one being added); its sessions drop to `aal1`. */
    removeFactor: build.mutation<null, { key: IdentityKey; factorId: string }>({
      queryFn: ({ key, factorId }) =>
        withClient(key, 'The authenticator app could not be removed.', async (client) => {
          const { error } = await client.mfa.unenroll({ factorId });
          return error ? refused(error) : { data: null };
        }),
      invalidatesTags: ['Factor', 'RecoveryCodes', 'Session'],
    }),

    /**
     * Whether the account's recovery codes exist, and how many are left. The factors say whether there is a
     * set: its status is asked only then (the identity service answers 404 for an account without one, which
     * the browser would log as an error on every visit).
     */
    recoveryCodesStatus: build.query<RecoveryCodesStatus, IdentityKey>({
      queryFn: (key) =>
        withClient<RecoveryCodesStatus>(key, LOAD_FAILED, async (client) => {
          const factors = await readFactors(client);
          if ('error' in factors) return factors;
          const none = { data: { kind: 'none' as const, canMake: factors.data.totp.length > 0 } };
          if (!factors.data.all.some((factor) => factor.factor_type === 'recovery_code')) {
            return none;
          }
          const { data, error } = await client.mfa.recoveryCodes.getStatus();
          if (!error)
            return { data: { kind: 'set', total: data.total, remaining: data.remaining } };
          // Gone since the factors were read.
          if (error.code === 'mfa_factor_not_found') return none;
          return refused(error);
        }),
      providesTags: ['RecoveryCodes'],
      keepUnusedDataFor: 0,
    }),
    /** Makes the account's recovery codes (`anew`: retiring the old set); answers them, shown once. */
    makeRecoveryCodes: build.mutation<
      { codes: string[]; total: number },
      { key: IdentityKey; anew: boolean }
    >({
      queryFn: ({ key, anew }) =>
        withClient(key, 'The recovery codes could not be made.', async (client) => {
          const result = anew
            ? await client.mfa.recoveryCodes.regenerate()
            : await client.mfa.recoveryCodes.generate();
          if (result.error) return refused(result.error);
          return { data: { codes: result.data.codes, total: result.data.total } };
        }),
      // The new set counts at once.
      async onQueryStarted({ key }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (!data) return;
        void dispatch(
          accountApi.util.upsertQueryData('recoveryCodesStatus', key, {
            kind: 'set',
            total: data.total,
            remaining: data.codes.length,
          }),
        );
      },
      // The set is one of the account's factors.
      invalidatesTags: ['Factor'],
    }),

    /** The account's passkeys. */
    listPasskeys: build.query<PasskeyListItem[], IdentityKey>({
      queryFn: (key) =>
        withClient(key, 'Could not read your passkeys.', async (client) => {
          const { data, error } = await client.passkey.list();
          return error ? refused(error) : { data };
        }),
      providesTags: ['Passkey'],
      keepUnusedDataFor: 0,
    }),
    /**
     * Whether the account has a passkey; a server that serves none, or a refused or failed list, counts as
     * none (the other factors still work).
     */
    hasPasskey: build.query<boolean, IdentityKey>({
      queryFn: (key) =>
        withClient(key, LOAD_FAILED, async (client) => {
          const passkeys = await client.passkey.list().catch(() => ({ data: null }));
          return { data: (passkeys.data?.length ?? 0) > 0 };
        }),
      providesTags: ['Passkey'],
      keepUnusedDataFor: 0,
    }),
    /**
     * Adds a passkey (the browser's ceremony), then names it `name` when given; a failed naming keeps the
     * passkey and answers its message in `renameError`.
     */
    addPasskey: build.mutation<{ renameError: string | null }, { key: IdentityKey; name: string }>({
      queryFn: ({ key, name }) =>
        withClient(key, 'The passkey could not be added.', async (client) => {
          const { data, error } = await client.registerPasskey();
          if (error) return refusal(ceremonyMessage(error), error.code);
          if (!name || name === data.friendly_name) return { data: { renameError: null } };
          const { error: renameError } = await client.passkey.update({
            passkeyId: data.id,
            friendlyName: name,
          });
          return { data: { renameError: renameError ? authErrorMessage(renameError) : null } };
        }),
      invalidatesTags: ['Passkey', 'Factor'],
    }),
    renamePasskey: build.mutation<null, { key: IdentityKey; passkeyId: string; name: string }>({
      queryFn: ({ key, passkeyId, name }) =>
        withClient(key, 'The passkey could not be renamed.', async (client) => {
          const { error } = await client.passkey.update({ passkeyId, friendlyName: name });
          return error ? refused(error) : { data: null };
        }),
      invalidatesTags: ['Passkey'],
    }),
    /** Removes a passkey; the sessions that signed in with it drop to `aal1`. */
    removePasskey: build.mutation<null, { key: IdentityKey; passkeyId: string }>({
      queryFn: ({ key, passkeyId }) =>
        withClient(key, 'The passkey could not be removed.', async (client) => {
          const { error } = await client.passkey.delete({ passkeyId });
          return error ? refused(error) : { data: null };
        }),
      invalidatesTags: ['Passkey', 'Factor', 'Session'],
    }),
  }),
});

export const {
  useListSessionsQuery,
  useSignOutSessionMutation,
  useSignOutOtherSessionsMutation,
  useListFactorsQuery,
  useEnrollTotpMutation,
  useVerifyTotpMutation,
  useRemoveFactorMutation,
  useRecoveryCodesStatusQuery,
  useMakeRecoveryCodesMutation,
  useListPasskeysQuery,
  useHasPasskeyQuery,
  useAddPasskeyMutation,
  useRenamePasskeyMutation,
  useRemovePasskeyMutation,
} = accountApi;
