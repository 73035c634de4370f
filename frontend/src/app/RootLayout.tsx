import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import { Outlet, ScrollRestoration, useNavigation } from 'react-router';

/** Shell of every route: a thin progress bar while the next route's code loads. */
export function RootLayout() {
  const navigation = useNavigation();
  return (
    <>
      {navigation.state === 'loading' && (
        <Box sx={{ position: 'fixed', top: 0, left: 0, right: 0, zIndex: 'tooltip' }}>
          <LinearProgress aria-label="Loading page" />
        </Box>
      )}
      <Outlet />
      <ScrollRestoration />
    </>
  );
}
