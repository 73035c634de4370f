import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useRouteError } from 'react-router';

/**
 * Shown when a route fails to load or render, typically a code chunk that
 * disappeared after a new deployment; reloading fetches the new one.
 */
export function RouteError() {
  const error = useRouteError();
  if (import.meta.env.DEV) console.error(error);

  return (
    <Stack
      component="main"
      spacing={2}
      sx={{ minHeight: '100dvh', alignItems: 'center', justifyContent: 'center', p: 3 }}
    >
      <Typography variant="h1" sx={{ fontSize: '2rem', textAlign: 'center' }}>
        Something went wrong
      </Typography>
      <Typography color="text.secondary" sx={{ textAlign: 'center' }}>
        This page could not be loaded. Reloading usually fixes it.
      </Typography>
      <Button
        variant="contained"
        onClick={() => {
          window.location.reload();
        }}
      >
        Reload page
      </Button>
    </Stack>
  );
}
