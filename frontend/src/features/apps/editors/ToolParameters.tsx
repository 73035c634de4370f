import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineOutlinedIcon from '@mui/icons-material/DeleteOutlineOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

import type { ToolParameter, ToolParameterType } from '../types';
import { CommaListField } from './fields';
import { omit } from './time';

const PARAMETER_TYPES: readonly ToolParameterType[] = ['string', 'number', 'boolean'];

/** A parameter name not yet used by `parameters`. */
function freshName(parameters: Record<string, ToolParameter>): string {
  let n = Object.keys(parameters).length + 1;
  while (`param${String(n)}` in parameters) n += 1;
  return `param${String(n)}`;
}

/** `parameters` with `from` renamed to `to`, keeping the order. */
function rename(
  parameters: Record<string, ToolParameter>,
  from: string,
  to: string,
): Record<string, ToolParameter> {
  return Object.fromEntries(
    Object.entries(parameters).map(([name, p]) => [name === from ? to : name, p]),
  );
}

interface ParametersProps {
  toolName: string;
  parameters: Record<string, ToolParameter>;
  onChange: (next: Record<string, ToolParameter>) => void;
  err: (field: string) => string | undefined;
  disabled: boolean;
}

/** A tool's parameters: name, type, description, required, and allowed values for strings. */
export function ParametersEditor({
  toolName,
  parameters,
  onChange,
  err,
  disabled,
}: ParametersProps) {
  const entries = Object.entries(parameters);
  const set = (name: string, next: ToolParameter) => {
    onChange({ ...parameters, [name]: next });
  };
  return (
    <Stack spacing={1} component="fieldset" sx={{ border: 0, m: 0, p: 0 }}>
      <Typography component="legend" variant="subtitle2">
        Parameters
      </Typography>
      {entries.length === 0 && (
        <Typography variant="body2" color="text.secondary">
          No parameters.
        </Typography>
      )}
      {entries.map(([name, parameter], position) => (
        <Paper key={position} variant="outlined" sx={{ p: 1.5 }}>
          <Stack spacing={1.5}>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
              <ParameterName
                name={name}
                others={entries.map(([n]) => n).filter((n) => n !== name)}
                onRename={(to) => {
                  onChange(rename(parameters, name, to));
                }}
                error={err(`parameters.${name}`)}
                disabled={disabled}
              />
              <TextField
                select
                label="Parameter type"
                value={parameter.type}
                onChange={(e) => {
                  const type = e.target.value as ToolParameterType;
                  // Allowed values belong to string parameters only.
                  set(
                    name,
                    type === 'string'
                      ? { ...parameter, type }
                      : { ...omit(parameter, 'enum'), type },
                  );
                }}
                disabled={disabled}
                sx={{ minWidth: 160 }}
              >
                {PARAMETER_TYPES.map((type) => (
                  <MenuItem key={type} value={type}>
                    {type}
                  </MenuItem>
                ))}
              </TextField>
              <FormControlLabel
                control={
                  <Checkbox
                    checked={parameter.required}
                    onChange={(e) => {
                      set(name, { ...parameter, required: e.target.checked });
                    }}
                    disabled={disabled}
                  />
                }
                label="Required"
              />
              <Box>
                <IconButton
                  aria-label={`Remove parameter "${name}" of ${toolName}`}
                  onClick={() => {
                    onChange(Object.fromEntries(entries.filter(([n]) => n !== name)));
                  }}
                  disabled={disabled}
                >
                  <DeleteOutlineOutlinedIcon />
                </IconButton>
              </Box>
            </Stack>
            <TextField
              label="Parameter description"
              value={parameter.description}
              onChange={(e) => {
                set(name, { ...parameter, description: e.target.value });
              }}
              error={Boolean(err(`parameters.${name}.description`))}
              helperText={err(`parameters.${name}.description`)}
              disabled={disabled}
            />
            {parameter.type === 'string' && (
              <CommaListField
                label="Allowed values"
                value={parameter.enum ?? []}
                onChange={(values) => {
                  set(
                    name,
                    values.length > 0 ? { ...parameter, enum: values } : omit(parameter, 'enum'),
                  );
                }}
                error={Boolean(err(`parameters.${name}.enum`))}
                helperText={
                  err(`parameters.${name}.enum`) ??
                  'Optional, comma-separated (e.g. "today, tomorrow").'
                }
                disabled={disabled}
              />
            )}
          </Stack>
        </Paper>
      ))}
      <Box>
        <Button
          size="small"
          startIcon={<AddIcon />}
          onClick={() => {
            onChange({
              ...parameters,
              [freshName(parameters)]: { type: 'string', description: '', required: false },
            });
          }}
          disabled={disabled}
        >
          Add Parameter
        </Button>
      </Box>
    </Stack>
  );
}

/** A parameter's name: renamed as typed, unless the name is empty or taken (then it says so). */
function ParameterName({
  name,
  others,
  onRename,
  error,
  disabled,
}: {
  name: string;
  others: string[];
  onRename: (to: string) => void;
  error: string | undefined;
  disabled: boolean;
}) {
  const [text, setText] = useState(name);
  const trimmed = text.trim();
  const shown = trimmed === name || trimmed === '' || others.includes(trimmed) ? text : name;
  const problem =
    shown.trim() === ''
      ? 'Parameter name is required'
      : others.includes(shown.trim())
        ? 'Another parameter has this name'
        : error;
  return (
    <TextField
      label="Parameter name"
      value={shown}
      onChange={(e) => {
        const next = e.target.value;
        setText(next);
        const trimmed = next.trim();
        if (trimmed !== '' && !others.includes(trimmed)) onRename(trimmed);
      }}
      onBlur={() => {
        setText(name);
      }}
      error={Boolean(problem)}
      helperText={problem}
      required
      disabled={disabled}
      sx={{ flex: 1 }}
    />
  );
}
