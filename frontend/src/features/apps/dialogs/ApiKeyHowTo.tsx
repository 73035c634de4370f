import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import CheckIcon from '@mui/icons-material/Check';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useId } from 'react';

import { API_KEY_ENV_VAR, apiKeySnippet } from './apiKeySnippet';
import { useCopyToClipboard } from '../../../components/useCopyToClipboard';

/**
 * How to use an API key (issue 25, item 13): the environment variable and the SDK option it goes in, as a
 * snippet to copy, and the reminder that the app server must answer `/health`.
 */
export function ApiKeyHowTo({
  packageName,
  apiKey,
}: {
  packageName: string;
  apiKey?: string | null;
}) {
  const headingId = useId();
  const snippet = apiKeySnippet(packageName, apiKey);
  const { copied, failed, copy } = useCopyToClipboard();
  return (
    <Box component="section" aria-labelledby={headingId}>
      <Typography id={headingId} variant="subtitle2" component="h3" gutterBottom>
        How to use the key
      </Typography>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 1 }}>
        Put the key in the <code>{API_KEY_ENV_VAR}</code> environment variable of your app server
        and pass it to the SDK as the <code>apiKey</code> option. Keep it out of source control.
      </Typography>
      <Box
        component="pre"
        data-testid="api-key-snippet"
        tabIndex={0}
        aria-label="Setup snippet"
        sx={{
          m: 0,
          p: 1.5,
          borderRadius: 1,
          border: 1,
          borderColor: 'divider',
          bgcolor: 'action.hover',
          fontFamily: 'monospace',
          fontSize: '0.8125rem',
          overflowX: 'auto',
          whiteSpace: 'pre',
        }}
      >
        {snippet}
      </Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 1, flexWrap: 'wrap' }}>
        <Button
          size="small"
          startIcon={copied ? <CheckIcon /> : <ContentCopyIcon />}
          onClick={() => void copy(snippet)}
        >
          {copied ? 'Snippet copied' : 'Copy snippet'}
        </Button>
        <span role="status">
          {failed && !copied && (
            <Typography component="span" variant="body2" sx={{ color: 'text.secondary' }}>
              Your browser did not allow copying. Select the snippet and copy it yourself.
            </Typography>
          )}
        </span>
      </Box>
      <Typography variant="body2" sx={{ color: 'text.secondary', mt: 1 }}>
        Your app server must answer <code>GET /health</code> with status 200 and the JSON body{' '}
        <code>{'{"status":"healthy"}'}</code>: the portal checks it before publishing and while the
        app is live, and anything else reads as Offline. The SDK&apos;s <code>AppServer</code>{' '}
        serves it unless <code>healthCheck</code> is turned off.
      </Typography>
    </Box>
  );
}
