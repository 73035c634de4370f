import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useEffect } from 'react';
import { useBlocker } from 'react-router';

/**
 * Asks before leaving a form with unsaved changes (issue 25, item 15): a link or Back inside the portal
 * opens a dialog (Stay / Leave without saving); closing or reloading the tab asks through the browser's
 * own prompt. Nothing is asked while `dirty` is false.
 */
export function UnsavedChangesPrompt({ dirty }: { dirty: boolean }) {
  // A change of the query alone (?orgId=, a tab) stays on the page: only another path asks.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty && currentLocation.pathname !== nextLocation.pathname,
  );

  useEffect(() => {
    if (!dirty) return;
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', ask);
    return () => {
      window.removeEventListener('beforeunload', ask);
    };
  }, [dirty]);

  // Saved (or undone) meanwhile: the navigation asked for goes ahead.
  useEffect(() => {
    if (blocker.state === 'blocked' && !dirty) blocker.proceed();
  }, [blocker, dirty]);

  const stay = () => {
    if (blocker.state === 'blocked') blocker.reset();
  };

  return (
    <Dialog
      open={blocker.state === 'blocked'}
      onClose={stay}
      aria-labelledby="unsaved-changes-title"
      aria-describedby="unsaved-changes-text"
    >
      <DialogTitle id="unsaved-changes-title">Leave without saving?</DialogTitle>
      <DialogContent>
        <DialogContentText id="unsaved-changes-text">
          You have changes that are not saved. If you leave this page now, they are lost.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={stay} variant="contained" autoFocus>
          Stay on Page
        </Button>
        <Button
          color="error"
          onClick={() => {
            if (blocker.state === 'blocked') blocker.proceed();
          }}
        >
          Leave without Saving
        </Button>
      </DialogActions>
    </Dialog>
  );
}
