/**
 * Renders pages ahead of time, at build time (scripts/prerender.mjs runs this module in Node): the server
 * sends that markup, so the page paints before its JavaScript arrives. A public page is what a signed-out
 * visitor's first render shows, and the browser bundle takes it over (main.tsx). A signed-in page is its
 * shell only (top bar, sidebar, the outline of the page while the organizations load), with nobody's data
 * in it: the bundle renders the page in its place. Styles included (Emotion writes them next to the
 * elements; they move to the head when the bundle starts).
 */
import InitColorSchemeScript from '@mui/material/InitColorSchemeScript';
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router';

import { AppProviders } from './app/AppProviders';
import { routes } from './app/router';
import { makeStore } from './app/store';
import { authSlice, restoredAuthState } from './session/authSlice';
import { addressStartsSession, IDENTITY_SESSION_KEY } from './session/storage';
import { COLOR_MODE_STORAGE_KEY } from './theme/theme';

/**
 * The markup of one page, and the script that applies the stored colour mode: as a signed-out visitor sees
 * it, or (`signedIn`) the signed-in shell a returning visitor sees while the page's data loads.
 */
export async function renderPage(
  path: string,
  { signedIn = false }: { signedIn?: boolean } = {},
): Promise<{ head: string; body: string }> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(new URL(path, 'http://localhost')));
  if (context instanceof Response) {
    throw new Error(`${path} answers a redirect (${String(context.status)}), not a page`);
  }
  if (context.statusCode !== 200) {
    throw new Error(`${path} renders with status ${String(context.statusCode)}`);
  }
  const router = createStaticRouter(handler.dataRoutes, context);
  // The signed-in shell is rendered for no one: a placeholder token only makes the layout wait for the
  // organizations (nothing is fetched at build time), which is the state the shell shows.
  const auth = signedIn
    ? restoredAuthState({ user: { id: '', email: '' }, coreToken: 'prerendered' })
    : { ...authSlice.getInitialState(), status: 'signedOut' as const };
  const store = makeStore({ auth });
  const body = renderToString(
    <StrictMode>
      <AppProviders store={store}>
        <StaticRouterProvider router={router} context={context} hydrate={false} />
      </AppProviders>
    </StrictMode>,
  );
  const head = renderToString(
    <InitColorSchemeScript
      attribute="data"
      modeStorageKey={COLOR_MODE_STORAGE_KEY}
      defaultMode="system"
    />,
  );
  return { head, body };
}

/**
 * A script for the signed-in shell: run before the page first paints, it empties the shell for a visitor who
 * surely has no session (the same test as `surelySignedOut`, which main.tsx makes later), so that a signed-out
 * visitor never sees a top bar with its account menu while the code that sends them to the sign-in page loads.
 */
export function signedOutShellScript(): string {
  return (
    `(function(){var startsSession=${addressStartsSession.toString()};` +
    `try{if(!localStorage.getItem(${JSON.stringify(IDENTITY_SESSION_KEY)})&&!startsSession(location)){` +
    `var root=document.getElementById("root");root.replaceChildren();root.removeAttribute("data-prerendered")}}` +
    `catch(e){}})()`
  );
}
