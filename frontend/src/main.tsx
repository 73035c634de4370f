import { setupListeners } from '@reduxjs/toolkit/query';
import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { matchRoutes, type DataRouter } from 'react-router';

import { App } from './app/App';
import { TakenOver } from './app/TakenOver';
import { AUTHENTICATED_ROUTE_ID, createAppRouter, routes } from './app/router';
import { makeStore } from './app/store';
import { portalTheme } from './theme/theme';
import { authSlice, restoredAuthState, type AuthState } from './session/authSlice';
import { addressStartsSession, storedCoreSession, surelySignedOut } from './session/storage';
import { orgsApi } from './features/orgs/api';
import { publicConfigApi } from './features/publicConfig/api';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

/**
 * How the page starts: without a stored session the signed-out pages show at once; with the core token of
 * an earlier visit still valid, the signed-in pages show at once (provisionally, until the identity client
 * confirms the session in the background); otherwise the identity client decides.
 */
function startingAuth(): AuthState | undefined {
  if (surelySignedOut(window.location))
    return { ...authSlice.getInitialState(), status: 'signedOut' };
  if (addressStartsSession(window.location)) return undefined;
  const stored = storedCoreSession();
  return stored ? restoredAuthState(stored) : undefined;
}
/**
 * Resolves in a task of its own: what the page does at start is split into tasks shorter than a long one
 * (50 ms on a phone), so that the page can answer input between them: evaluating the modules, making the
 * theme, making the store and asking for the first answers, then the router and the first render.
 */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, 0);
  });
}

/** Resolves once the router has loaded the code of the route it starts on. */
function routerReady(router: DataRouter) {
  return new Promise<void>((resolve) => {
    if (router.state.initialized) {
      resolve();
      return;
    }
    const unsubscribe = router.subscribe((state) => {
      if (state.initialized) {
        unsubscribe();
        resolve();
      }
    });
  });
}

/** Starts the page: the store, its first requests, the router and the first render. */
async function start(container: HTMLElement) {
  await nextTask();
  portalTheme();
  await nextTask();
  const auth = startingAuth();
  const store = makeStore(auth ? { auth } : undefined);
  // A visitor who may be signed in needs the identity client at once: its code is fetched now, alongside the
  // server's configuration, which the auth provider waits for before it creates the client. (Not with a
  // stored token: the page paints first, see AuthProvider.)
  if (store.getState().auth.status === 'loading') void import('./features/auth/client');
  // Every signed-in page's layout waits for the organizations: with a stored token they are asked for now,
  // alongside the route's code, rather than after it. (Not kept: the layout subscribes when it renders.)
  if (
    store.getState().auth.provisional &&
    matchRoutes(routes, window.location)?.some(({ route }) => route.id === AUTHENTICATED_ROUTE_ID)
  ) {
    void store.dispatch(orgsApi.endpoints.listOrgs.initiate(undefined, { subscribe: false }));
  }
  // refetchOnFocus / refetchOnReconnect for the queries that ask for them.
  setupListeners(store.dispatch);
  await nextTask();
  const router = createAppRouter();
  const app = (
    <StrictMode>
      <App store={store} router={router} />
    </StrictMode>
  );

  // A public page built ahead of time (the landing and sign-in pages, see scripts/prerender.mjs) is already
  // on screen: React takes it over once the route's code is here, so that it never flashes a spinner. The
  // first render is a transition, so React works in short slices and the page stays responsive meanwhile.
  if (
    container.dataset.prerendered === 'signedOut' &&
    store.getState().auth.status === 'signedOut'
  ) {
    void routerReady(router).then(() => {
      startTransition(() => {
        hydrateRoot(container, <TakenOver rootId={container.id}>{app}</TakenOver>);
      });
    });
  } else {
    // Every page needs the server's configuration (links, the identity service): asked for now rather than
    // after the first render. (Not for a prerendered page: it must first render as it was rendered, with the
    // defaults.) The subscription lasts as long as the page, as the components' own would.
    void store.dispatch(publicConfigApi.endpoints.getPublicConfig.initiate());
    const root = createRoot(container);
    if (container.dataset.prerendered === 'shell' && store.getState().auth.status === 'signedIn') {
      // The signed-in shell built ahead of time (the dashboard's top bar, sidebar and outline) stays on
      // screen until React's first render takes its place (React empties the container when it first
      // commits). That render waits for the route's code, so that it is the page, not a spinner.
      void routerReady(router).then(() => {
        startTransition(() => {
          root.render(<TakenOver rootId={container.id}>{app}</TakenOver>);
        });
      });
    } else {
      // A prerendered page for a visitor who may be signed in (or a shell for one who is not yet known to
      // be) is not taken over: React starts afresh.
      container.replaceChildren();
      container.removeAttribute('data-prerendered');
      startTransition(() => {
        root.render(app);
      });
    }
  }
}

void start(container);
