import Box from '@mui/material/Box';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { RefObject, SyntheticEvent } from 'react';

import type { TokenScope } from '../../api/types';
import { ALL_ORGS, type Field, type FieldErrors, type OrgChoice } from './createToken';
import type { TokenDraft } from './draft';
import { DEFAULT_EXPIRY_DAYS, EXPIRY_DAYS, MAX_NAME_LENGTH, SCOPES } from './format';

/** The form's id: the dialog's Create button submits it from the dialog's actions. */
export const TOKEN_FORM_ID = 'token-create-form';

interface Props {
  values: TokenDraft;
  errors: FieldErrors;
  orgs: OrgChoice[];
  busy: boolean;
  nameRef: RefObject<HTMLInputElement | null>;
  /** Changes what the form holds (from what it held); the changed field's error goes. */
  onChange: (field: Field, update: (previous: TokenDraft) => Partial<TokenDraft>) => void;
  onSubmit: (event: SyntheticEvent) => void;
}

/** The create dialog's fields: name, organization, scopes and expiry, each with its help or error. */
export function TokenFields({ values, errors, orgs, busy, nameRef, onChange, onSubmit }: Props) {
  const toggleScope = (scope: TokenScope, on: boolean) => {
    onChange('scopes', (previous) => ({
      // Kept in the server's order.
      scopes: SCOPES.map((s) => s.scope).filter((s) =>
        s === scope ? on : previous.scopes.includes(s),
      ),
    }));
  };

  return (
    <Stack
      component="form"
      id={TOKEN_FORM_ID}
      spacing={2.5}
      onSubmit={onSubmit}
      noValidate
      sx={{ pt: 1 }}
    >
      <TextField
        label="Name"
        required
        autoFocus
        inputRef={nameRef}
        value={values.name}
        onChange={(event) => {
          onChange('name', () => ({ name: event.target.value }));
        }}
        error={Boolean(errors.name)}
        helperText={
          errors.name ?? 'What will use it, such as “GitHub Actions deploy”. Up to 100 characters.'
        }
        slotProps={{ htmlInput: { maxLength: MAX_NAME_LENGTH + 20 } }}
        disabled={busy}
        fullWidth
      />
      <TextField
        select
        label="Organization"
        value={values.orgId}
        onChange={(event) => {
          onChange('orgId', () => ({ orgId: event.target.value }));
        }}
        error={Boolean(errors.orgId)}
        helperText={errors.orgId ?? 'Where it may act. One organization is safest.'}
        disabled={busy}
        fullWidth
      >
        {orgs.map((org) => (
          <MenuItem key={org.id} value={org.id}>
            {org.name}
          </MenuItem>
        ))}
        <MenuItem value={ALL_ORGS}>All your organizations</MenuItem>
      </TextField>
      <FormControl
        component="fieldset"
        error={Boolean(errors.scopes)}
        disabled={busy}
        aria-describedby="token-scopes-help"
      >
        <FormLabel component="legend">Scopes</FormLabel>
        <FormGroup>
          {SCOPES.map(({ scope, explanation }) => (
            <FormControlLabel
              key={scope}
              sx={{ alignItems: 'flex-start', mt: 0.5 }}
              control={
                <Checkbox
                  checked={values.scopes.includes(scope)}
                  onChange={(event) => {
                    toggleScope(scope, event.target.checked);
                  }}
                  sx={{ pt: 0.25 }}
                />
              }
              label={
                <Box>
                  <Box component="span" sx={{ fontFamily: 'monospace', fontWeight: 600 }}>
                    {scope}
                  </Box>
                  <Typography variant="body2" color="text.secondary">
                    {explanation}
                  </Typography>
                </Box>
              }
            />
          ))}
        </FormGroup>
        <FormHelperText id="token-scopes-help">
          {errors.scopes ?? 'Choose only what it needs; at least one.'}
        </FormHelperText>
      </FormControl>
      <TextField
        select
        label="Expires after"
        value={String(values.expiresInDays)}
        onChange={(event) => {
          onChange('expiresInDays', () => ({ expiresInDays: Number(event.target.value) }));
        }}
        error={Boolean(errors.expiresInDays)}
        helperText={errors.expiresInDays ?? 'Every token expires; make a new one when it does.'}
        disabled={busy}
        fullWidth
      >
        {EXPIRY_DAYS.map((days) => (
          <MenuItem key={days} value={String(days)}>
            {days} days{days === DEFAULT_EXPIRY_DAYS ? ' (recommended)' : ''}
          </MenuItem>
        ))}
      </TextField>
    </Stack>
  );
}
