import { render, type RenderResult } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';

import { AppProviders } from '../app/AppProviders';
import { routes } from '../app/router';
import { makeStore, type AppStore } from '../app/store';

interface Options {
  /** Where the memory router starts. */
  route?: string;
  /** A store of the test's own; a fresh one otherwise. */
  store?: AppStore;
}

type Rendered = RenderResult & {
  store: AppStore;
  router: ReturnType<typeof createMemoryRouter>;
  user: UserEvent;
};

function renderRouter(routeObjects: RouteObject[], { route = '/', store = makeStore() }: Options) {
  const router = createMemoryRouter(routeObjects, { initialEntries: [route] });
  const user = userEvent.setup();
  const result = render(
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...result, store, router, user } satisfies Rendered;
}

/** Renders one component with the store, the theme and a router around it. */
export function renderWithProviders(ui: ReactElement, options: Options = {}): Rendered {
  return renderRouter([{ path: '*', element: ui }], options);
}

/** Renders the real route table at `route`, as the app does. */
export function renderRoute(route: string, options: Omit<Options, 'route'> = {}): Rendered {
  return renderRouter(routes, { ...options, route });
}
