import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState, type SyntheticEvent } from 'react';

import { errorMessage, isApiErrorBody, isFetchBaseQueryError } from '../../api/errors';
import type { WebhookEndpoint, WebhookEventType } from '../../api/types';
import { EVENT_LABELS } from './format';

export interface EndpointValues {
  url: string;
  description: string;
  /** Empty: every event. */
  events: WebhookEventType[];
}

type Field = 'url' | 'description' | 'events';

/** Server field errors by field (`events[2]` counts as `events`). */
function fieldErrors(error: unknown): Partial<Record<Field, string>> {
  if (!isFetchBaseQueryError(error) || !isApiErrorBody(error.data) || !error.data.fields) return {};
  const found: Partial<Record<Field, string>> = {};
  for (const [name, message] of Object.entries(error.data.fields)) {
    const field = name.startsWith('events') ? 'events' : name;
    if (field === 'url' || field === 'description' || field === 'events') found[field] = message;
  }
  return found;
}

/**
 * Adds an endpoint, or edits one: its URL, a description and the events it wants (every event when none
 * is ticked). `onSave` answers the server's refusal, if any, which is shown on its fields.
 */
export function EndpointDialog({
  open,
  endpoint,
  eventTypes,
  busy,
  onSave,
  onClose,
}: {
  open: boolean;
  endpoint?: WebhookEndpoint;
  eventTypes: WebhookEventType[];
  busy: boolean;
  onSave: (values: EndpointValues) => Promise<unknown>;
  onClose: () => void;
}) {
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [events, setEvents] = useState<WebhookEventType[]>(endpoint?.events ?? []);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  // A field's refusal goes as soon as the field is edited: it was about the value that was sent.
  const clearError = (field: Field) => {
    setErrors((current) => {
      if (!(field in current)) return current;
      return Object.fromEntries(Object.entries(current).filter(([name]) => name !== field));
    });
  };
  const [failure, setFailure] = useState<string | null>(null);
  const all = events.length === 0;

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const trimmed = url.trim();
    if (!trimmed) {
      setErrors({ url: 'Enter the URL that receives the events.' });
      return;
    }
    setErrors({});
    setFailure(null);
    const refusal = await onSave({ url: trimmed, description: description.trim(), events });
    if (refusal) {
      const fields = fieldErrors(refusal);
      setErrors(fields);
      if (Object.keys(fields).length === 0) {
        setFailure(errorMessage(refusal, 'The endpoint could not be saved.'));
      }
    }
  };

  const toggle = (type: WebhookEventType) => {
    setEvents((current) =>
      current.includes(type) ? current.filter((t) => t !== type) : [...current, type],
    );
  };

  return (
    <Dialog open={open} onClose={busy ? undefined : onClose} fullWidth maxWidth="sm">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <DialogTitle>{endpoint ? 'Edit endpoint' : 'Add endpoint'}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {failure && (
              <Alert severity="error" role="alert">
                {failure}
              </Alert>
            )}
            <TextField
              label="Endpoint URL"
              value={url}
              onChange={(event) => {
                setUrl(event.target.value);
                clearError('url');
              }}
              error={Boolean(errors.url)}
              helperText={errors.url ?? 'https://… of your chat, CI or on-call system'}
              required
              autoFocus
              fullWidth
            />
            <TextField
              label="Description"
              value={description}
              onChange={(event) => {
                setDescription(event.target.value);
                clearError('description');
              }}
              error={Boolean(errors.description)}
              helperText={errors.description}
              fullWidth
            />
            <FormControl component="fieldset" error={Boolean(errors.events)}>
              <FormLabel component="legend">Events</FormLabel>
              <FormGroup>
                <FormControlLabel
                  control={
                    <Checkbox
                      checked={all}
                      onChange={() => {
                        setEvents([]);
                        clearError('events');
                      }}
                    />
                  }
                  label="Every event (including events added later)"
                />
                {eventTypes.map((type) => (
                  <FormControlLabel
                    key={type}
                    control={
                      <Checkbox
                        checked={events.includes(type)}
                        onChange={() => {
                          toggle(type);
                          clearError('events');
                        }}
                      />
                    }
                    label={`${type} — ${EVENT_LABELS[type]}`}
                  />
                ))}
              </FormGroup>
              {errors.events && <FormHelperText>{errors.events}</FormHelperText>}
            </FormControl>
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={busy}>
            {endpoint ? 'Save' : 'Add endpoint'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
