import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import BrokenImageIcon from '@mui/icons-material/BrokenImage';
import ImageIcon from '@mui/icons-material/Image';
import UploadIcon from '@mui/icons-material/Upload';
import { useEffect, useId, useRef, useState, type ChangeEvent } from 'react';

import {
  ALLOWED_IMAGE_TYPES,
  IMAGE_LOAD_FAILED,
  imageFileProblem,
  uploadFailureMessage,
} from './ImageUploadRequest';
import { useImageUpload } from './useImageUpload';

export interface ImageUploadProps {
  /** The current image URL ('' for none). */
  value: string;
  /** Called with the uploaded image's URL. */
  onChange: (url: string) => void;
  label: string;
  /** Shown under the picker (e.g. the recommended size). */
  hint?: string;
  /** A form error about the field. */
  error?: string;
  disabled?: boolean;
  required?: boolean;
  /** `{appPackageName}` and the like. */
  metadata?: Record<string, string>;
  /** Told when an upload starts and ends, so that a form can wait for it. */
  onUploadingChange?: (uploading: boolean) => void;
  /** Alternative text of the preview. */
  previewAlt?: string;
}

/**
 * A file picker with a preview: checks type and size first (spec §5), uploads to the current organization
 * with a progress bar, and replaces the current image when it is one of the portal's (its id is taken from
 * the URL).
 */
export function ImageUpload({
  value,
  onChange,
  label,
  hint,
  error,
  disabled = false,
  required = false,
  metadata,
  onUploadingChange,
  previewAlt,
}: ImageUploadProps) {
  const { orgId, upload } = useImageUpload();
  const inputRef = useRef<HTMLInputElement>(null);
  const abort = useRef<AbortController | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // The URL whose preview failed to load; a new value gets a fresh try.
  const [brokenUrl, setBrokenUrl] = useState<string | null>(null);
  const broken = brokenUrl !== null && brokenUrl === value;
  const labelId = useId();
  const helpId = useId();

  useEffect(
    () => () => {
      abort.current?.abort();
    },
    [],
  );

  const uploading = progress !== null;

  const pick = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // The same file may be picked again after a failure.
    event.target.value = '';
    if (!file) return;
    setProblem(null);
    const refused = imageFileProblem(file);
    if (refused) {
      setProblem(refused);
      return;
    }
    if (!orgId) {
      setProblem('Please select an organization first');
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    setProgress(0);
    onUploadingChange?.(true);
    try {
      const url = await upload(file, {
        current: value,
        metadata,
        onProgress: setProgress,
        signal: controller.signal,
      });
      onChange(url);
    } catch (failure) {
      if (!controller.signal.aborted) setProblem(uploadFailureMessage(failure));
    } finally {
      if (abort.current === controller) abort.current = null;
      setProgress(null);
      onUploadingChange?.(false);
    }
  };

  const shownError = problem ?? error;

  return (
    <Stack spacing={1} role="group" aria-labelledby={labelId} aria-describedby={helpId}>
      <FormLabel id={labelId} required={required} error={Boolean(shownError)}>
        {label}
      </FormLabel>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Box
          sx={{
            width: 96,
            height: 96,
            borderRadius: 2,
            border: 1,
            borderColor: shownError ? 'error.main' : 'divider',
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'center',
            overflow: 'hidden',
            bgcolor: 'action.hover',
            flexShrink: 0,
          }}
        >
          {value && !broken ? (
            <Box
              component="img"
              src={value}
              alt={previewAlt ?? `${label} preview`}
              onError={() => {
                setBrokenUrl(value);
              }}
              sx={{ width: '100%', height: '100%', objectFit: 'contain' }}
            />
          ) : value && broken ? (
            <BrokenImageIcon color="error" aria-hidden />
          ) : (
            <ImageIcon color="disabled" sx={{ fontSize: 40 }} aria-hidden />
          )}
        </Box>
        <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
          <Button
            variant="outlined"
            startIcon={<UploadIcon />}
            disabled={disabled || uploading}
            onClick={() => inputRef.current?.click()}
          >
            {uploading ? 'Uploading...' : value ? 'Replace Image' : 'Choose Image'}
          </Button>
          <input
            ref={inputRef}
            type="file"
            hidden
            accept={ALLOWED_IMAGE_TYPES.join(',')}
            aria-label={label}
            data-testid="image-upload-input"
            onChange={(event) => void pick(event)}
          />
          <Typography variant="caption" color="text.secondary" id={helpId}>
            {hint ?? 'PNG, JPEG, GIF or WebP, up to 10 MB.'}
          </Typography>
        </Stack>
      </Stack>
      {uploading && (
        <Box>
          <LinearProgress
            variant="determinate"
            value={progress}
            aria-label={`Uploading ${label.toLowerCase()}`}
          />
          <Typography variant="caption" color="text.secondary" role="status">
            Uploading... {progress}%
          </Typography>
        </Box>
      )}
      {value && broken && (
        <Alert severity="warning" sx={{ py: 0 }}>
          {IMAGE_LOAD_FAILED}
        </Alert>
      )}
      {shownError && <FormHelperText error>{shownError}</FormHelperText>}
    </Stack>
  );
}
