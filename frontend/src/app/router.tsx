import { createBrowserRouter, type RouteObject } from 'react-router';

import { PageSpinner } from '../components/PageSpinner';
import { routePatterns } from '../config/paths';
import { RootLayout } from './RootLayout';
import { RouteError } from './RouteError';

/**
 * Route table (specification §2). Every page is a lazy route: its code is
 * fetched when the route is first visited, so the first page stays small.
 * To add a page, add `{ path: routePatterns.x, lazy: () => import(...) }`.
 */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <RouteError />,
    // Shown while the first route's code loads.
    hydrateFallbackElement: <PageSpinner />,
    children: [
      {
        path: routePatterns.home,
        lazy: async () => ({
          Component: (await import('../features/landing/LandingPage')).LandingPage,
        }),
      },
      {
        path: routePatterns.notFound,
        lazy: async () => ({
          Component: (await import('../features/notFound/NotFoundPage')).NotFoundPage,
        }),
      },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
