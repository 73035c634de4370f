import { createBrowserRouter, type RouteObject } from 'react-router';

import { PageSpinner } from '../components/PageSpinner';
import { routePatterns } from '../config/paths';
import { RequireAuth } from '../features/auth/RequireAuth';
import { RootLayout } from './RootLayout';
import { RouteError } from './RouteError';

/** The route under which every page needs a signed-in user. */
export const AUTHENTICATED_ROUTE_ID = 'authenticated';

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
      ...[
        routePatterns.signIn,
        routePatterns.login,
        routePatterns.signUp,
        routePatterns.inviteAccept,
      ].map((path) => ({
        path,
        lazy: async () => ({
          Component: (await import('../features/auth/SignInPage')).SignInPage,
        }),
      })),
      {
        // The tester page of a share link: public, works signed out.
        path: routePatterns.install,
        lazy: async () => ({
          Component: (await import('../features/tester/TesterPage')).TesterPage,
        }),
      },
      {
        // Authenticated pages: the guard, then the layout with the top bar and the sidebar.
        id: AUTHENTICATED_ROUTE_ID,
        element: <RequireAuth />,
        children: [
          {
            // The second-factor step: signed in, but before the layout (nothing else may load yet).
            path: routePatterns.mfaChallenge,
            lazy: async () => ({
              Component: (await import('../features/account/MfaChallengePage')).MfaChallengePage,
            }),
          },
          {
            lazy: async () => ({
              Component: (await import('../features/layout/AppLayout')).AppLayout,
            }),
            children: [
              {
                path: routePatterns.dashboard,
                lazy: async () => ({
                  Component: (await import('../features/dashboard/DashboardPage')).DashboardPage,
                }),
              },
              {
                path: routePatterns.apps,
                lazy: async () => ({
                  Component: (await import('../features/apps/MyAppsPage')).MyAppsPage,
                }),
              },
              {
                path: routePatterns.appCreate,
                lazy: async () => ({
                  Component: (await import('../features/apps/create/CreateAppPage')).CreateAppPage,
                }),
              },
              {
                path: routePatterns.appEdit,
                lazy: async () => ({
                  Component: (await import('../features/apps/edit/EditAppPage')).EditAppPage,
                }),
              },
              {
                path: routePatterns.orgSettings,
                lazy: async () => ({
                  Component: (await import('./OrgSettingsRoute')).OrgSettingsRoute,
                }),
              },
              {
                path: routePatterns.accountSecurity,
                lazy: async () => ({
                  Component: (await import('../features/account/AccountSecurityPage'))
                    .AccountSecurityPage,
                }),
              },
              {
                path: routePatterns.accessTokens,
                lazy: async () => ({
                  Component: (await import('../features/tokens/AccessTokensPage')).AccessTokensPage,
                }),
              },
              {
                path: routePatterns.members,
                lazy: async () => ({
                  Component: (await import('../features/orgs/MembersPage')).MembersPage,
                }),
              },
              {
                path: routePatterns.webhooks,
                lazy: async () => ({
                  Component: (await import('../features/webhooks/WebhooksPage')).WebhooksPage,
                }),
              },
              {
                path: routePatterns.auditLog,
                lazy: async () => ({
                  Component: (await import('../features/audit/AuditLogPage')).AuditLogPage,
                }),
              },
              {
                path: routePatterns.setupAdmin,
                lazy: async () => ({
                  Component: (await import('../features/admin/SetupAdminPage')).SetupAdminPage,
                }),
              },
              {
                path: routePatterns.admin,
                lazy: async () => ({
                  Component: (await import('../features/admin/AdminPage')).AdminPage,
                }),
              },
            ],
          },
        ],
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
