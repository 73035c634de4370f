import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import { Outlet, ScrollRestoration, useNavigation } from 'react-router';

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
      <Outlet />
      <ScrollRestoration />
    </AuthProvider>
  );
}
