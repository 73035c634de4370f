import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';

/** Asks before an endpoint is deleted, with its delivery log. */
export function DeleteEndpointDialog({
  open,
  url,
  busy,
  onCancel,
  onDelete,
}: {
  open: boolean;
  url: string;
  busy: boolean;
  onCancel: () => void;
  onDelete: () => void;
}) {
  return (
    <Dialog open={open} onClose={onCancel}>
      <DialogTitle>Delete this endpoint?</DialogTitle>
      <DialogContent>
        <Typography>
          {url} receives no more events, and its delivery log is deleted with it.
        </Typography>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel}>Cancel</Button>
        <Button color="error" variant="contained" disabled={busy} onClick={onDelete}>
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}
