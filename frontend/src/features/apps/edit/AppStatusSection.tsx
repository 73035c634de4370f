import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import { Section } from '../form/AppDetailsFields';
import { StatusChip } from '../list/StatusChip';
import { storeAction } from '../list/status';
import type { App } from '../types';
import type { DialogKind } from './editApp';
import { formatDateTime } from './format';

/** One action of Edit App that opens its dialog. */
function DialogButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Box>
      <Button variant="outlined" onClick={onClick}>
        {label}
      </Button>
    </Box>
  );
}

/** Sharing, the API key and the store status of the app, each acted on in a dialog. */
export function AppStatusSection({
  app,
  onOpen,
}: {
  app: App;
  onOpen: (dialog: DialogKind) => void;
}) {
  const action = storeAction(app.appStoreStatus);
  return (
    <>
      <Section title="Share with Testers" id="edit-app-share">
        <Typography variant="body2" color="text.secondary">
          Anyone with the install link gets read-only testing access.
        </Typography>
        <DialogButton
          label="Share with Testers"
          onClick={() => {
            onOpen('share');
          }}
        />
      </Section>
      <Section title="API Key" id="edit-app-api-key">
        <Typography variant="body2" color="text.secondary">
          Your server uses the API key to connect. It is shown only once; you can regenerate it (the
          old key stops working at once).
        </Typography>
        <DialogButton
          label="Manage API Key"
          onClick={() => {
            onOpen('apiKey');
          }}
        />
      </Section>
      <Section title="App Status" id="edit-app-status">
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <StatusChip status={app.appStoreStatus} />
          {action && (
            <Button
              variant="contained"
              color="secondary"
              onClick={() => {
                onOpen('publish');
              }}
            >
              {action === 'resubmit' ? 'Resubmit to App Store' : 'Publish to App Store'}
            </Button>
          )}
        </Stack>
        {app.appStoreStatus === 'REJECTED' && (
          <Alert severity="error">
            <Typography sx={{ fontWeight: 500 }}>Rejected</Typography>
            {app.reviewNotes && (
              <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap' }}>
                {app.reviewNotes}
              </Typography>
            )}
            {app.reviewedAt && (
              <Typography variant="body2">Reviewed {formatDateTime(app.reviewedAt)}</Typography>
            )}
          </Alert>
        )}
        {app.appStoreStatus === 'SUBMITTED' && (
          <Typography variant="body2" color="text.secondary">
            The app is waiting for review.
          </Typography>
        )}
        <DialogButton
          label="Move to Another Organization"
          onClick={() => {
            onOpen('move');
          }}
        />
      </Section>
    </>
  );
}
