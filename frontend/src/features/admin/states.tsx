import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

/** A section's loading state, announced to screen readers. */
export function Loading({ label }: { label: string }) {
  return (
    <Stack direction="row" spacing={2} role="status" sx={{ alignItems: 'center', py: 3 }}>
      <CircularProgress size={24} aria-hidden />
      <Typography color="text.secondary">{label}</Typography>
    </Stack>
  );
}

/** A section's load failure, with a retry. */
export function LoadError({ text, onRetry }: { text: string; onRetry: () => void }) {
  return (
    <Alert
      severity="error"
      action={
        <Button color="inherit" size="small" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      {text}
    </Alert>
  );
}
