import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import type { ReviewEventKind } from '../../../api/types';
import { useGetAppHistoryQuery } from '../api';
import type { AppHistoryEntry } from '../types';
import { formatDateTime } from './format';

const kindLabels: Record<ReviewEventKind, string> = {
  submitted: 'Submitted for review',
  approved: 'Approved',
  rejected: 'Rejected',
  edited: 'Edited while waiting for review',
  edited_after_approval: 'Edited after approval',
  resubmitted: 'Sent back to review (permission added)',
  moved: 'Moved to another organization',
};

/** A list of texts in the entry's detail (`changedFields`, `addedPermissions`). */
function detailList(entry: AppHistoryEntry, name: string): string[] {
  const list = entry.detail?.[name];
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [];
}

/** The app's review history, newest first, with the reviewers' notes. */
export function ReviewHistory({ orgId, packageName }: { orgId: string; packageName: string }) {
  const { data, isLoading, isError, refetch } = useGetAppHistoryQuery({ orgId, packageName });
  if (isLoading) {
    return (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} role="status">
        <CircularProgress size={20} aria-hidden />
        <Typography>Loading review history...</Typography>
      </Stack>
    );
  }
  if (isError || !data) {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={() => void refetch()}>
            Retry
          </Button>
        }
      >
        Failed to load the review history.
      </Alert>
    );
  }
  if (data.length === 0) {
    return (
      <Typography color="text.secondary">
        No review events yet. Submitting the app for review starts its history.
      </Typography>
    );
  }
  return (
    <Stack component="ol" spacing={1.5} sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {[...data].reverse().map((entry) => {
        const fields = detailList(entry, 'changedFields');
        const added = detailList(entry, 'addedPermissions');
        return (
          <Stack
            component="li"
            key={entry.id}
            spacing={0.5}
            sx={{ borderLeft: 3, borderColor: 'divider', pl: 1.5 }}
          >
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
              <Typography sx={{ fontWeight: 500 }}>{kindLabels[entry.kind]}</Typography>
              {entry.selfReview && <Chip size="small" variant="outlined" label="Self-review" />}
            </Stack>
            <Typography variant="body2" color="text.secondary">
              {formatDateTime(entry.at)} by {entry.actor}
            </Typography>
            {fields.length > 0 && (
              <Typography variant="body2">Changed: {fields.join(', ')}</Typography>
            )}
            {added.length > 0 && (
              <Typography variant="body2">Permissions added: {added.join(', ')}</Typography>
            )}
            {entry.notes && (
              <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap' }}>
                Notes: {entry.notes}
              </Typography>
            )}
          </Stack>
        );
      })}
    </Stack>
  );
}
