import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import CheckIcon from '@mui/icons-material/Check';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useEffect, useState, type ReactNode } from 'react';

import { OutlinedField } from '../../../components/OutlinedField';
import { useRegenerateApiKeyMutation } from '../api';
import { ApiKeyHowTo } from './ApiKeyHowTo';
import { useCopyToClipboard } from '../../../components/useCopyToClipboard';

/** A key is shown only when it is longer than this (spec §5, §9). */
export const MIN_SHOWN_KEY_LENGTH = 10;

export interface ApiKeyDialogProps {
  open: boolean;
  onClose: () => void;
  orgId: string;
  packageName: string;
  /** The app's display name, for the title. */
  appName?: string;
  /** A key just issued (after Create App): shown at once, copied automatically. */
  initialKey?: string | null;
  /** Extra buttons beside Close (Create App adds Go to My Apps). */
  extraActions?: ReactNode;
}

type Step = 'view' | 'confirm' | 'shown';

/**
 * The API key dialog (spec §2): explains that keys are shown once, regenerates after a warning that the old
 * key stops working, then shows the new key once, copies it automatically, and forgets it on close.
 */
export function ApiKeyDialog(props: ApiKeyDialogProps) {
  // A fresh dialog each time it opens: closing clears the key.
  return props.open ? <ApiKeyDialogBody {...props} /> : null;
}

function ApiKeyDialogBody({
  onClose,
  orgId,
  packageName,
  appName,
  initialKey,
  extraActions,
}: ApiKeyDialogProps) {
  const [key, setKey] = useState<string | null>(initialKey ?? null);
  const [step, setStep] = useState<Step>(initialKey ? 'shown' : 'view');
  const [failure, setFailure] = useState<string | null>(null);
  const [regenerated, setRegenerated] = useState(false);
  const [regenerate, { isLoading }] = useRegenerateApiKeyMutation();
  const { copied, failed, copy } = useCopyToClipboard();

  // A key is copied as soon as it is shown.
  useEffect(() => {
    if (key && key.length > MIN_SHOWN_KEY_LENGTH) void copy(key);
  }, [key, copy]);

  const confirmRegenerate = async () => {
    setFailure(null);
    try {
      const { apiKey } = await regenerate({ orgId, packageName }).unwrap();
      setKey(apiKey);
      setRegenerated(true);
      setStep('shown');
    } catch {
      setFailure('Failed to regenerate API key. Please try again.');
      setStep('view');
    }
  };

  const showable = key !== null && key.length > MIN_SHOWN_KEY_LENGTH;

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="api-key-title">
      <DialogTitle id="api-key-title">API Key{appName ? ` for ${appName}` : ''}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          {failure && <Alert severity="error">{failure}</Alert>}
          {step === 'view' && (
            <DialogContentText>
              Your app uses its API key to connect to the platform. For your security the key is
              shown only once, when it is created. If you lost it, regenerate it to get a new one.
            </DialogContentText>
          )}
          {step === 'confirm' && (
            <Alert severity="warning">
              Regenerating creates a new key and the current key stops working at once. Any server
              using it must be updated with the new key.
            </Alert>
          )}
          {step === 'shown' && (
            <>
              {regenerated && <Alert severity="success">API key regenerated successfully</Alert>}
              <Alert severity="warning">
                Important: This key is only shown once. Please copy it now!
              </Alert>
              {showable ? (
                <OutlinedField
                  label="API key"
                  value={key}
                  fullWidth
                  readOnly
                  inputProps={{ spellCheck: false, 'data-testid': 'api-key' }}
                  slotProps={{ input: { sx: { fontFamily: 'monospace' } } }}
                  endAdornment={
                    <InputAdornment position="end">
                      <Tooltip title={copied ? 'Copied!' : 'Copy API key'}>
                        <IconButton
                          aria-label={copied ? 'API key copied' : 'Copy API key'}
                          onClick={() => void copy(key)}
                          edge="end"
                        >
                          {copied ? <CheckIcon color="success" /> : <ContentCopyIcon />}
                        </IconButton>
                      </Tooltip>
                    </InputAdornment>
                  }
                  onFocus={(event) => {
                    event.target.select();
                  }}
                />
              ) : (
                <Alert severity="error">No valid API key was returned. Please regenerate it.</Alert>
              )}
              <div role="status" aria-live="polite">
                {copied && <Alert severity="success">Copied to clipboard</Alert>}
                {failed && !copied && (
                  <Alert severity="info">
                    Your browser did not allow copying. Select the key and copy it yourself.
                  </Alert>
                )}
              </div>
            </>
          )}
          {step !== 'confirm' && (
            <ApiKeyHowTo
              packageName={packageName}
              apiKey={step === 'shown' && showable ? key : null}
            />
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        {step === 'view' && (
          <Button
            color="error"
            onClick={() => {
              setFailure(null);
              setStep('confirm');
            }}
          >
            Regenerate API Key
          </Button>
        )}
        {step === 'confirm' && (
          <>
            <Button
              onClick={() => {
                setStep('view');
              }}
              disabled={isLoading}
            >
              Cancel
            </Button>
            <Button
              color="error"
              variant="contained"
              onClick={() => void confirmRegenerate()}
              disabled={isLoading}
            >
              {isLoading ? 'Regenerating...' : 'Yes, Regenerate'}
            </Button>
          </>
        )}
        {extraActions}
        <Button onClick={onClose} variant={step === 'shown' ? 'contained' : 'text'}>
          Close
        </Button>
      </DialogActions>
    </Dialog>
  );
}
