import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import { Suspense } from 'react';
import { Outlet, ScrollRestoration, useNavigation } from 'react-router';

import { PageSpinner } from '../components/PageSpinner';
import { AuthProvider } from '../features/auth/AuthProvider';

/** Shell of every route: the session, and a thin progress bar while the next route's code loads. */
export function RootLayout() {
  const navigation = useNavigation();
  return (
    <AuthProvider>
      {navigation.state === 'loading' && (
        <Box sx={{ position: 'fixed', top: 0, left: 0, right: 0, zIndex: 'tooltip' }}>
          <LinearProgress aria-label="Loading page" />
        </Box>
      )}
      {/* A boundary of its own: when React takes over a page rendered at build time, it hydrates the page
          in short slices (yielding to the browser) instead of in one long task. */}
      <Suspense fallback={<PageSpinner />}>
        <Outlet />
      </Suspense>
      <ScrollRestoration />
    </AuthProvider>
  );
}
