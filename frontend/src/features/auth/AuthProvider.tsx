import type { GoTrueClient, Session } from '@supabase/auth-js';
import { startTransition, useEffect, useRef, useState, type ReactNode } from 'react';

import { baseApi } from '../../api/baseApi';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { useGetPublicConfigQuery } from '../publicConfig';
import { AuthClientContext } from './AuthClientContext';
import {
  noticeShown,
  recoveryEnded,
  recoveryStarted,
  selectProvisional,
  signedIn,
  signedOut,
} from '../../session/authSlice';
import { orgSelected } from '../../session/orgSlice';
import { exchangeToken } from './exchange';
import { forgetSession, rememberSession } from '../../session/storage';
import { identityAuthUrl } from './identityUrl';

/**
 * Runs `run` once the browser has nothing more urgent to do (at the latest after 2 s); answers a function
 * that cancels it.
 */
function whenIdle(run: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const id = window.requestIdleCallback(run, { timeout: 2000 });
    return () => {
      window.cancelIdleCallback(id);
    };
  }
  const id = window.setTimeout(run, 0);
  return () => {
    window.clearTimeout(id);
  };
}

/**
 * Keeps the Redux auth state in step with the identity client: a session (at start-up, after sign-in,
 * after each refresh) is exchanged for a core token; no session means signed out. Sequenced on the
 * client's own events, with no artificial delays (PRODUCT.md §7).
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const dispatch = useAppDispatch();
  const { data: config, isError } = useGetPublicConfigQuery();
  const authUrl = config ? identityAuthUrl(config.identity) : '';
  const anonKey = config?.identity.anonKey ?? '';
  // The auth client is loaded on demand: the landing page paints without it (make bench, first route). A
  // page that started from a stored core token paints first and loads it once the browser is idle; a 401
  // to that token (the session is no longer provisional) or a sign-out asks for it at once.
  const provisional = useAppSelector(selectProvisional);
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    if (!provisional) return;
    return whenIdle(() => {
      setIdle(true);
    });
  }, [provisional]);
  const wanted = idle || !provisional;
  const [client, setClient] = useState<GoTrueClient | null>(null);
  useEffect(() => {
    if (!authUrl || !wanted) return;
    let live = true;
    void import('./client').then(({ createAuthClient }) => {
      // A transition: every user of the client renders again, in short slices rather than one long task.
      if (live)
        startTransition(() => {
          setClient(createAuthClient(authUrl, anonKey));
        });
    });
    return () => {
      live = false;
    };
  }, [authUrl, anonKey, wanted]);
  // The access token last exchanged: the client may report one session several times.
  const exchanged = useRef<string | null>(null);

  useEffect(() => {
    if (isError && !client) {
      dispatch(
        signedOut({
          severity: 'error',
          text: 'Sign-in is unavailable: the server could not be reached. Please try again.',
        }),
      );
    }
  }, [isError, client, dispatch]);

  useEffect(() => {
    if (!client) return;
    let active = true;

    const establish = async (session: Session) => {
      if (exchanged.current === session.access_token) return;
      exchanged.current = session.access_token;
      const result = await exchangeToken(session.access_token);
      if (!active) return;
      if (!result.ok && result.reason === 'refused') {
        exchanged.current = null;
        forgetSession();
        await client.signOut({ scope: 'local' });
        dispatch(
          signedOut({ severity: 'error', text: 'Your session has ended. Please sign in again.' }),
        );
        return;
      }
      const coreToken = result.ok ? result.coreToken : null;
      const email = session.user.email ?? '';
      rememberSession(coreToken, email);
      dispatch(
        signedIn({
          user: { id: session.user.id, email },
          accessToken: session.access_token,
          coreToken,
        }),
      );
    };

    const { data } = client.onAuthStateChange((event, session) => {
      if (event === 'PASSWORD_RECOVERY') dispatch(recoveryStarted());
      if (event === 'USER_UPDATED') dispatch(recoveryEnded());
      // A new password ends the other sessions, and a second factor passed ends the other sessions that
      // did not pass one and makes recovery codes possible: what the account screens show is read again.
      if (event === 'USER_UPDATED' || event === 'MFA_CHALLENGE_VERIFIED') {
        dispatch(baseApi.util.invalidateTags(['Session', 'Factor', 'RecoveryCodes']));
      }
      if (session) {
        // Not awaited inside the callback: the client holds its lock while it runs.
        void establish(session);
      } else if (event === 'INITIAL_SESSION' || event === 'SIGNED_OUT') {
        exchanged.current = null;
        forgetSession();
        dispatch(signedOut());
        // Nothing cached for one user may show to the next.
        if (event === 'SIGNED_OUT') {
          dispatch(baseApi.util.resetApiState());
          dispatch(orgSelected(null));
        }
      }
    });
    return () => {
      active = false;
      data.subscription.unsubscribe();
    };
  }, [client, dispatch]);

  // A provider sign-in comes back to the sign-in page with `?code=` (or `?error_description=`): the code
  // is exchanged once (the query is removed from the address at once) and the session handed over.
  useEffect(() => {
    if (!client || !authUrl) return;
    const returned = new URL(window.location.href);
    const code = returned.searchParams.get('code');
    const providerError = returned.searchParams.get('error_description');
    if (returned.pathname !== '/signin' || (!code && !providerError)) return;
    for (const name of ['code', 'error', 'error_code', 'error_description']) {
      returned.searchParams.delete(name);
    }
    window.history.replaceState(window.history.state, '', returned.toString());
    if (providerError) {
      dispatch(noticeShown({ severity: 'error', text: providerError }));
    } else if (code) {
      void import('./client')
        .then(({ completeProviderSignIn, createOAuthClient }) =>
          completeProviderSignIn(client, createOAuthClient(authUrl, anonKey), code),
        )
        .then((message) => {
          if (message) dispatch(noticeShown({ severity: 'error', text: message }));
        });
    }
  }, [client, dispatch, authUrl, anonKey]);

  return <AuthClientContext value={client}>{children}</AuthClientContext>;
}
