import CheckIcon from '@mui/icons-material/Check';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

import type { CreatedAccessToken } from '../../api/types';
import { OutlinedField } from '../../components/OutlinedField';
import type { OrgChoice } from './createToken';
import { formatDate } from './format';

/** The token just made: shown this once, with a copy button and how to use it. */
export function TokenShownOnce({ token, orgs }: { token: CreatedAccessToken; orgs: OrgChoice[] }) {
  const [copied, setCopied] = useState(false);
  const [copyFailed, setCopyFailed] = useState(false);
  const origin = window.location.origin;
  const orgId = token.orgId ?? orgs[0]?.id ?? '<organization id>';

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopied(true);
      setCopyFailed(false);
    } catch {
      setCopied(false);
      setCopyFailed(true);
    }
  };

  return (
    <Stack spacing={2}>
      <Alert severity="warning">
        <AlertTitle>Copy it now: it will not be shown again</AlertTitle>
        Store it where it will be used, such as a CI secret. If you lose it, revoke it and create a
        new one.
      </Alert>
      <OutlinedField
        label={`${token.name} (expires ${formatDate(token.expiresAt)})`}
        value={token.token}
        fullWidth
        readOnly
        shrinkLabel
        inputProps={{ spellCheck: false, 'data-testid': 'new-token' }}
        slotProps={{ input: { sx: { fontFamily: 'monospace', fontSize: '0.875rem' } } }}
        onFocus={(event) => {
          event.target.select();
        }}
        endAdornment={
          <InputAdornment position="end">
            <Button
              onClick={() => void copy()}
              startIcon={copied ? <CheckIcon /> : <ContentCopyIcon />}
              size="small"
              aria-label={copied ? 'Copied' : 'Copy token'}
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
          </InputAdornment>
        }
      />
      <div role="status" aria-live="polite">
        {copied && <Alert severity="success">Copied to the clipboard.</Alert>}
        {copyFailed && (
          <Alert severity="info">
            Your browser did not allow copying. Select the token and copy it yourself.
          </Alert>
        )}
      </div>
      <Box>
        <Typography variant="subtitle2" component="h3" gutterBottom>
          Use it
        </Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          Sign the command-line tool in with it (it asks for the token), or send it as a bearer
          token:
        </Typography>
        <Box
          component="pre"
          sx={{
            m: 0,
            p: 1.5,
            borderRadius: 1,
            bgcolor: 'action.hover',
            fontFamily: 'monospace',
            fontSize: '0.8125rem',
            whiteSpace: 'pre-wrap',
            overflowWrap: 'anywhere',
          }}
        >
          {`devportal login --url ${origin}\n\ncurl -H "Authorization: Bearer dpt_…" \\\n  -H "x-org-id: ${orgId}" \\\n  ${origin}/api/dev/apps`}
        </Box>
      </Box>
    </Stack>
  );
}
