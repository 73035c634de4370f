import Backdrop from '@mui/material/Backdrop';
import CircularProgress from '@mui/material/CircularProgress';

/**
 * What a dialog shows while its code is on its way: the screen dimmed as behind a dialog, with a spinner,
 * until the dialog takes its place (a backdrop rather than an empty dialog: that would bring the modal's
 * code the dialog is loaded to spare). Without `onClose` a click does not dismiss it.
 */
export function DialogLoading({ onClose }: { onClose?: () => void }) {
  return (
    <Backdrop open onClick={onClose} sx={{ zIndex: 'modal', color: 'common.white' }}>
      <CircularProgress color="inherit" aria-label="Loading" />
    </Backdrop>
  );
}
