import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';

/** Centred spinner shown while a route or the session loads. */
export function PageSpinner({ label = 'Loading' }: { label?: string }) {
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '100dvh', width: '100%' }}>
      <CircularProgress aria-label={label} />
    </Box>
  );
}
