import { setupListeners } from '@reduxjs/toolkit/query';
import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import type { DataRouter } from 'react-router';

import { App } from './app/App';
import { TakenOver } from './app/TakenOver';
import { createAppRouter } from './app/router';
import { makeStore } from './app/store';
import { authSlice } from './features/auth/authSlice';
import { surelySignedOut } from './features/auth/storage';
import { publicConfigApi } from './features/publicConfig/api';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

// Without a stored session the signed-out pages show at once; otherwise the identity client decides.
const store = makeStore(
  surelySignedOut(window.location)
    ? { auth: { ...authSlice.getInitialState(), status: 'signedOut' } }
    : undefined,
);
// A visitor who may be signed in needs the identity client at once: its code is fetched now, alongside the
// server's configuration, which the auth provider waits for before it creates the client.
if (store.getState().auth.status !== 'signedOut') void import('./features/auth/client');
// refetchOnFocus / refetchOnReconnect for the queries that ask for them.
setupListeners(store.dispatch);
const router = createAppRouter();
const app = (
  <StrictMode>
    <App store={store} router={router} />
  </StrictMode>
);

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

// A page built ahead of time (the landing and sign-in pages, see scripts/prerender.mjs) is already on
// screen: React takes it over once the route's code is here, so that it never flashes a spinner. The
// first render is a transition, so React works in short slices and the page stays responsive meanwhile.
if (container.dataset.prerendered === 'signedOut' && store.getState().auth.status === 'signedOut') {
  void routerReady(router).then(() => {
    startTransition(() => {
      hydrateRoot(container, <TakenOver rootId={container.id}>{app}</TakenOver>);
    });
  });
} else {
  // A prerendered page for a visitor who may be signed in is not taken over: React starts afresh.
  container.replaceChildren();
  container.removeAttribute('data-prerendered');
  // Every page needs the server's configuration (links, the identity service): asked for now rather than
  // after the first render. (Not for a prerendered page: it must first render as it was rendered, with the
  // defaults.) The subscription lasts as long as the page, as the components' own would.
  void store.dispatch(publicConfigApi.endpoints.getPublicConfig.initiate());
  const root = createRoot(container);
  startTransition(() => {
    root.render(app);
  });
}
