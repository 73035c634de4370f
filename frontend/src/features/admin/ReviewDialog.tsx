import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState } from 'react';

import { isApiErrorBody, isFetchBaseQueryError } from '../../api/errors';
import { useAppDispatch } from '../../app/store';
import { noticeShown } from '../../session/authSlice';
import { useApproveAppMutation, useGetAdminAppQuery, useRejectAppMutation } from './api';
import { Loading } from '../../components/Loading';
import { AppDetails } from './ReviewAppDetails';

/** The server's answer when the app changed since the reviewer opened it (PRODUCT.md §4). */
export const APP_CHANGED = 'The app changed since you opened it';

const MESSAGES = {
  approve: {
    done: 'App approved successfully!',
    failed: 'Failed to approve app. Please try again.',
  },
  reject: {
    done: 'App rejected. Developer has been notified.',
    failed: 'Failed to reject app. Please try again.',
  },
} as const;

type Action = keyof typeof MESSAGES;

/**
 * Review App Submission (spec §2, §8; PRODUCT.md §4): the app, its history and the decision. A decision
 * carries the revision the reviewer saw; when the app changed since, the dialog says so and reloads it.
 * Render it with `key={packageName}` so that every app starts with empty notes.
 */
export function ReviewDialog({
  packageName,
  onClose,
}: {
  packageName: string | null;
  onClose: () => void;
}) {
  const dispatch = useAppDispatch();
  const app = useGetAdminAppQuery(packageName ?? '', {
    skip: !packageName,
    refetchOnMountOrArgChange: true,
  });
  const [approve, approving] = useApproveAppMutation();
  const [reject, rejecting] = useRejectAppMutation();
  const [notes, setNotes] = useState('');
  const [failure, setFailure] = useState<string | null>(null);

  const busy = approving.isLoading || rejecting.isLoading;
  const loaded = app.data?.packageName === packageName ? app.data : undefined;

  const decide = async (action: Action) => {
    if (!loaded || !packageName) return;
    setFailure(null);
    const request = { packageName, notes: notes.trim(), expectedUpdatedAt: loaded.updatedAt };
    try {
      await (action === 'approve' ? approve(request) : reject(request)).unwrap();
      dispatch(noticeShown({ severity: 'success', text: MESSAGES[action].done }));
      onClose();
    } catch (error) {
      if (
        isFetchBaseQueryError(error) &&
        error.status === 409 &&
        isApiErrorBody(error.data) &&
        error.data.code === 'APP_CHANGED'
      ) {
        setFailure(`${APP_CHANGED}. It has been reloaded: please review it again.`);
        void app.refetch();
        return;
      }
      const detail =
        isFetchBaseQueryError(error) && isApiErrorBody(error.data) && error.status !== 500
          ? ` (${error.data.error})`
          : '';
      setFailure(`${MESSAGES[action].failed}${detail}`);
    }
  };

  let body;
  if (!packageName) body = null;
  else if (app.isFetching && !loaded) body = <Loading label="Loading app details..." />;
  else if (!loaded) {
    body = (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={() => void app.refetch()}>
            Retry
          </Button>
        }
      >
        Error loading app details. Please try again.
      </Alert>
    );
  } else {
    body = (
      <Stack spacing={2}>
        <AppDetails app={loaded} />
        {loaded.appStoreStatus !== 'SUBMITTED' && (
          <Alert severity="info">
            This app is no longer waiting for review (status {loaded.appStoreStatus}).
          </Alert>
        )}
        {loaded.selfReview && (
          <Alert severity="warning">
            You are a member of this app&apos;s organization: your decision will be recorded as a
            self-review.
          </Alert>
        )}
        <TextField
          label="Review Notes"
          placeholder="Add review notes here (required for rejection)"
          multiline
          minRows={3}
          value={notes}
          onChange={(event) => {
            setNotes(event.target.value);
          }}
          disabled={busy}
          fullWidth
        />
      </Stack>
    );
  }

  return (
    <Dialog
      open={packageName !== null}
      onClose={busy ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="review-dialog-title"
    >
      <DialogTitle id="review-dialog-title">Review App Submission</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2}>
          {failure && (
            <Alert severity="error" role="alert">
              {failure}
            </Alert>
          )}
          {body}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button
          color="error"
          variant="outlined"
          onClick={() => void decide('reject')}
          disabled={!loaded || busy || app.isFetching || notes.trim() === ''}
        >
          {rejecting.isLoading ? 'Rejecting...' : 'Reject'}
        </Button>
        <Button
          color="success"
          variant="contained"
          onClick={() => void decide('approve')}
          disabled={!loaded || busy || app.isFetching}
        >
          {approving.isLoading ? 'Approving...' : 'Approve'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
