import Dialog from '@mui/material/Dialog';
import DialogContent from '@mui/material/DialogContent';

import { Loading } from './Loading';

/**
 * A dialog whose code is on its way: a dialog with the loading state, until the real one replaces it.
 * Without `onClose` it cannot be dismissed.
 */
export function DialogLoading({ onClose }: { onClose?: () => void }) {
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogContent>
        <Loading label="Loading..." />
      </DialogContent>
    </Dialog>
  );
}
