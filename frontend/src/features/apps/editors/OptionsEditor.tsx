import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineOutlinedIcon from '@mui/icons-material/DeleteOutlineOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormLabel from '@mui/material/FormLabel';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';

import type { SelectOption } from '../types';
import { optionText } from './settingText';

interface OptionsProps {
  options: SelectOption[];
  onChange: (next: SelectOption[]) => void;
  err: (field: string) => string | undefined;
  disabled: boolean;
}

/** Label and value rows of a select-like setting. */
export function OptionsEditor({ options, onChange, err, disabled }: OptionsProps) {
  const set = (i: number, next: SelectOption) => {
    onChange(options.map((o, j) => (j === i ? next : o)));
  };
  return (
    <Stack spacing={1} component="fieldset" sx={{ border: 0, m: 0, p: 0 }}>
      <FormLabel component="legend">Options</FormLabel>
      {options.map((option, i) => (
        <Stack key={i} direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
          <TextField
            size="small"
            label={`Option ${String(i + 1)} label`}
            value={option.label}
            onChange={(e) => {
              set(i, { ...option, label: e.target.value });
            }}
            error={Boolean(err(`options[${String(i)}].label`))}
            helperText={err(`options[${String(i)}].label`)}
            disabled={disabled}
            sx={{ flex: 1 }}
          />
          <TextField
            size="small"
            label={`Option ${String(i + 1)} value`}
            value={optionText(option.value)}
            onChange={(e) => {
              set(i, { ...option, value: e.target.value });
            }}
            error={Boolean(err(`options[${String(i)}].value`))}
            helperText={err(`options[${String(i)}].value`)}
            disabled={disabled}
            sx={{ flex: 1 }}
          />
          <IconButton
            aria-label={`Remove option ${String(i + 1)}`}
            onClick={() => {
              onChange(options.filter((_, j) => j !== i));
            }}
            disabled={disabled}
          >
            <DeleteOutlineOutlinedIcon />
          </IconButton>
        </Stack>
      ))}
      {err('options') && (
        <Typography color="error" variant="body2">
          {err('options')}
        </Typography>
      )}
      <Box>
        <Button
          size="small"
          startIcon={<AddIcon />}
          onClick={() => {
            const n = options.length + 1;
            onChange([...options, { label: `Option ${String(n)}`, value: `option${String(n)}` }]);
          }}
          disabled={disabled}
        >
          Add Option
        </Button>
      </Box>
    </Stack>
  );
}
