/**
 * Renders the public pages ahead of time, at build time (scripts/prerender.mjs runs this module in Node):
 * the server sends that markup, so the page paints before its JavaScript arrives, and the browser bundle
 * then takes it over (main.tsx). The markup is what a signed-out visitor's first render shows, styles
 * included (Emotion writes them next to the elements; they move to the head when the bundle starts).
 */
import InitColorSchemeScript from '@mui/material/InitColorSchemeScript';
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router';

import { AppProviders } from './app/AppProviders';
import { routes } from './app/router';
import { makeStore } from './app/store';
import { authSlice } from './features/auth/authSlice';
import { COLOR_MODE_STORAGE_KEY } from './theme/theme';

/** The markup of one page for a signed-out visitor, and the script that applies the stored colour mode. */
export async function renderPage(path: string): Promise<{ head: string; body: string }> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(new URL(path, 'http://localhost')));
  if (context instanceof Response) {
    throw new Error(`${path} answers a redirect (${String(context.status)}), not a page`);
  }
  if (context.statusCode !== 200) {
    throw new Error(`${path} renders with status ${String(context.statusCode)}`);
  }
  const router = createStaticRouter(handler.dataRoutes, context);
  const store = makeStore({ auth: { ...authSlice.getInitialState(), status: 'signedOut' } });
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
