import Chip from '@mui/material/Chip';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';

import { EditableRows } from './EditableRows';
import {
  availableHardware,
  hardwareLabels,
  MAX_DESCRIPTION_LEN,
  newHardware,
  preview,
  type HardwareLevel,
  type HardwareRequirement,
  type HardwareType,
} from './types';

interface Props {
  value: HardwareRequirement[];
  onChange: (next: HardwareRequirement[]) => void;
  disabled?: boolean;
  /** A server or form error about the list as a whole. */
  error?: string;
}

const levelLabels: Record<HardwareLevel, string> = {
  REQUIRED: 'Required',
  OPTIONAL: 'Optional',
};

/**
 * The hardware requirements editor (specification §2, §3, §5): each type at most once, a new entry is
 * REQUIRED; required hardware prevents installation where it is missing.
 */
export function HardwareEditor({ value, onChange, disabled, error }: Props) {
  return (
    <Stack spacing={1}>
      <EditableRows
        items={value}
        onChange={onChange}
        makeNew={newHardware}
        rowName={(h) => `${hardwareLabels[h.type]} requirement`}
        addLabel="Add Hardware Requirement"
        emptyText="No hardware requirements."
        disabled={disabled}
        summary={(h) => (
          <Stack spacing={0.25}>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Typography sx={{ fontWeight: 500 }}>{hardwareLabels[h.type]}</Typography>
              <Chip
                size="small"
                label={levelLabels[h.level]}
                color={h.level === 'REQUIRED' ? 'primary' : 'default'}
                variant={h.level === 'REQUIRED' ? 'filled' : 'outlined'}
              />
            </Stack>
            <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
              {h.description ? preview(h.description) : 'No description'}
            </Typography>
          </Stack>
        )}
        editor={(h, index, update) => {
          const others = value.filter((_, i) => i !== index);
          const choices: HardwareType[] = [
            h.type,
            ...availableHardware(others).filter((t) => t !== h.type),
          ];
          return (
            <>
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
                <TextField
                  select
                  label="Hardware"
                  value={h.type}
                  onChange={(e) => {
                    update({ ...h, type: e.target.value as HardwareType });
                  }}
                  disabled={disabled}
                  sx={{ flex: 1 }}
                >
                  {choices.map((type) => (
                    <MenuItem key={type} value={type}>
                      {hardwareLabels[type]}
                    </MenuItem>
                  ))}
                </TextField>
                <TextField
                  select
                  label="Level"
                  value={h.level}
                  onChange={(e) => {
                    update({ ...h, level: e.target.value as HardwareLevel });
                  }}
                  disabled={disabled}
                  helperText={
                    h.level === 'REQUIRED'
                      ? 'Devices without it cannot install the app.'
                      : 'The app works without it.'
                  }
                  sx={{ flex: 1 }}
                >
                  <MenuItem value="REQUIRED">{levelLabels.REQUIRED}</MenuItem>
                  <MenuItem value="OPTIONAL">{levelLabels.OPTIONAL}</MenuItem>
                </TextField>
              </Stack>
              <TextField
                label="Description"
                helperText="What the app uses it for."
                value={h.description ?? ''}
                onChange={(e) => {
                  update({ ...h, description: e.target.value });
                }}
                multiline
                minRows={2}
                slotProps={{ htmlInput: { maxLength: MAX_DESCRIPTION_LEN } }}
                disabled={disabled}
              />
            </>
          );
        }}
      />
      {error && (
        <Typography color="error" variant="body2" role="alert">
          {error}
        </Typography>
      )}
    </Stack>
  );
}
