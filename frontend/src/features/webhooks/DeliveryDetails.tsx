import CheckIcon from '@mui/icons-material/Check';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import type { WebhookDelivery } from '../../api/types';
import { useCopyToClipboard } from '../../components/useCopyToClipboard';
import { visuallyHidden } from '../../components/visuallyHidden';
import { missingAnswerText, readableBody } from './format';

/** A body as monospace text that wraps at the card's edge; a long one scrolls within its own height. */
function BodyText({ label, text }: { label: string; text: string }) {
  return (
    <Box
      component="pre"
      // Scrollable when long: reachable by keyboard, and named for screen readers.
      tabIndex={0}
      role="region"
      aria-label={label}
      sx={{
        m: 0,
        p: 1,
        borderRadius: 1,
        bgcolor: 'action.hover',
        fontFamily: 'monospace',
        fontSize: '0.8125rem',
        whiteSpace: 'pre-wrap',
        overflowWrap: 'anywhere',
        maxHeight: 360,
        overflowY: 'auto',
      }}
    >
      {text}
    </Box>
  );
}

/**
 * A delivery's request and answer (issue 48 item 12): the request body indented when it is JSON, wrapped,
 * with a button that copies it exactly as sent (the signature covers those bytes); the answer's body, or
 * words saying why there is none.
 */
export function DeliveryDetails({ delivery }: { delivery: WebhookDelivery }) {
  const { copied, failed, copy } = useCopyToClipboard();
  const shown = readableBody(delivery.requestBody);
  const missing = missingAnswerText(delivery);
  return (
    <Stack spacing={1} sx={{ mt: 1 }}>
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', justifyContent: 'space-between' }}
      >
        <Typography variant="subtitle2">Request body</Typography>
        <Button
          size="small"
          startIcon={copied ? <CheckIcon /> : <ContentCopyIcon />}
          onClick={() => void copy(delivery.requestBody)}
        >
          {copied ? 'Copied' : 'Copy body'}
        </Button>
        <Box role="status" sx={visuallyHidden}>
          {copied && 'Copied the request body, exactly as sent.'}
          {failed && 'Your browser did not allow copying.'}
        </Box>
      </Stack>
      <BodyText label="Request body" text={shown} />
      {failed && (
        <Typography variant="body2" color="text.secondary">
          Your browser did not allow copying. Select the body and copy it yourself.
        </Typography>
      )}
      {shown !== delivery.requestBody && (
        <Typography variant="body2" color="text.secondary">
          Indented here for reading. Copy body copies it as sent, byte for byte: the signature
          covers those bytes.
        </Typography>
      )}
      <Typography variant="subtitle2">Answer (first 4 KB)</Typography>
      {missing ? (
        <Typography variant="body2" color="text.secondary">
          {missing}
        </Typography>
      ) : (
        <BodyText label="Answer" text={readableBody(delivery.responseBody ?? '')} />
      )}
    </Stack>
  );
}
