import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';

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
