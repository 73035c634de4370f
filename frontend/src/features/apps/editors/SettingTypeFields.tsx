import Box from '@mui/material/Box';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';

import type { Setting } from '../types';
import { NumberField } from './fields';
import { optionText } from './settingText';
import { omit, secondsToTime, timeToSeconds } from './time';
import { OptionsEditor } from './OptionsEditor';

interface TypeFieldsProps {
  setting: Setting;
  onChange: (next: Setting) => void;
  err: (field: string) => string | undefined;
  disabled: boolean;
}

/** The fields particular to each type of setting. */
export function SettingTypeFields({ setting, onChange, err, disabled }: TypeFieldsProps) {
  switch (setting.type) {
    case 'group':
      return null;
    case 'titleValue':
      return (
        <TextField
          label="Value (read-only display)"
          value={optionText(setting.value)}
          onChange={(e) => {
            onChange({ ...setting, value: e.target.value });
          }}
          disabled={disabled}
        />
      );
    case 'toggle':
      return (
        <FormControlLabel
          control={
            <Switch
              checked={setting.defaultValue}
              onChange={(e) => {
                onChange({ ...setting, defaultValue: e.target.checked });
              }}
              disabled={disabled}
            />
          }
          label="On by default"
        />
      );
    case 'text':
    case 'text_no_save_button':
      return (
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
          <TextField
            label="Default text"
            value={setting.defaultValue}
            onChange={(e) => {
              onChange({ ...setting, defaultValue: e.target.value });
            }}
            error={Boolean(err('defaultValue'))}
            helperText={err('defaultValue')}
            disabled={disabled}
            sx={{ flex: 2 }}
          />
          {setting.type === 'text_no_save_button' && (
            <NumberField
              label="Maximum lines"
              optional
              value={setting.maxLines}
              onChange={(n) => {
                const rest = omit(setting, 'maxLines');
                onChange(n === undefined ? rest : { ...rest, maxLines: Math.trunc(n) });
              }}
              error={Boolean(err('maxLines'))}
              helperText={err('maxLines') ?? 'Optional'}
              disabled={disabled}
              sx={{ flex: 1 }}
            />
          )}
        </Stack>
      );
    case 'select':
    case 'select_with_search':
      return (
        <>
          <OptionsEditor
            options={setting.options}
            onChange={(options) => {
              onChange({ ...setting, options });
            }}
            err={err}
            disabled={disabled}
          />
          <TextField
            select
            label="Default option"
            value={
              setting.defaultValue === undefined
                ? ''
                : String(
                    setting.options.findIndex(
                      (o) => JSON.stringify(o.value) === JSON.stringify(setting.defaultValue),
                    ),
                  )
            }
            onChange={(e) => {
              const rest = omit(setting, 'defaultValue');
              const chosen = setting.options[Number(e.target.value)];
              onChange(
                e.target.value === '' || !chosen ? rest : { ...rest, defaultValue: chosen.value },
              );
            }}
            error={Boolean(err('defaultValue'))}
            helperText={err('defaultValue')}
            disabled={disabled}
          >
            <MenuItem value="">
              <em>None</em>
            </MenuItem>
            {setting.options.map((option, i) => (
              <MenuItem key={i} value={String(i)}>
                {option.label || optionText(option.value)}
              </MenuItem>
            ))}
          </TextField>
        </>
      );
    case 'multiselect':
      return (
        <>
          <OptionsEditor
            options={setting.options}
            onChange={(options) => {
              // Defaults follow the options: those no longer offered are dropped.
              const defaults = setting.defaultValue.filter((d) =>
                options.some((o) => JSON.stringify(o.value) === JSON.stringify(d)),
              );
              onChange({ ...setting, options, defaultValue: defaults });
            }}
            err={err}
            disabled={disabled}
          />
          <Box>
            <FormLabel component="legend">Selected by default</FormLabel>
            <FormGroup row>
              {setting.options.map((option, i) => {
                const on = setting.defaultValue.some(
                  (d) => JSON.stringify(d) === JSON.stringify(option.value),
                );
                return (
                  <FormControlLabel
                    key={i}
                    control={
                      <Checkbox
                        checked={on}
                        onChange={(e) => {
                          const others = setting.defaultValue.filter(
                            (d) => JSON.stringify(d) !== JSON.stringify(option.value),
                          );
                          onChange({
                            ...setting,
                            defaultValue: e.target.checked ? [...others, option.value] : others,
                          });
                        }}
                        disabled={disabled}
                      />
                    }
                    label={option.label || optionText(option.value) || `Option ${String(i + 1)}`}
                  />
                );
              })}
            </FormGroup>
            {err('defaultValue') && (
              <Typography color="error" variant="body2">
                {err('defaultValue')}
              </Typography>
            )}
          </Box>
        </>
      );
    case 'slider':
      return (
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
          <NumberField
            label="Minimum"
            value={setting.min}
            onChange={(n) => {
              onChange({ ...setting, min: n ?? 0 });
            }}
            error={Boolean(err('min'))}
            helperText={err('min')}
            disabled={disabled}
          />
          <NumberField
            label="Maximum"
            value={setting.max}
            onChange={(n) => {
              onChange({ ...setting, max: n ?? 100 });
            }}
            error={Boolean(err('max'))}
            helperText={err('max')}
            disabled={disabled}
          />
          <NumberField
            label="Default value"
            value={setting.defaultValue}
            onChange={(n) => {
              onChange({ ...setting, defaultValue: n ?? setting.min });
            }}
            error={Boolean(err('defaultValue'))}
            helperText={err('defaultValue')}
            disabled={disabled}
          />
        </Stack>
      );
    case 'numeric_input': {
      const optionalNumber = (field: 'min' | 'max' | 'step') => (n: number | undefined) => {
        onChange(n === undefined ? omit(setting, field) : { ...setting, [field]: n });
      };
      return (
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ flexWrap: 'wrap' }}>
          <NumberField
            label="Default value"
            value={setting.defaultValue}
            onChange={(n) => {
              onChange({ ...setting, defaultValue: n ?? 0 });
            }}
            error={Boolean(err('defaultValue'))}
            helperText={err('defaultValue')}
            disabled={disabled}
          />
          {(['min', 'max', 'step'] as const).map((field) => (
            <NumberField
              key={field}
              label={{ min: 'Minimum', max: 'Maximum', step: 'Step' }[field]}
              optional
              value={setting[field]}
              onChange={optionalNumber(field)}
              error={Boolean(err(field))}
              helperText={err(field) ?? 'Optional'}
              disabled={disabled}
            />
          ))}
          <TextField
            label="Placeholder"
            value={setting.placeholder ?? ''}
            onChange={(e) => {
              const rest = omit(setting, 'placeholder');
              onChange(e.target.value === '' ? rest : { ...rest, placeholder: e.target.value });
            }}
            error={Boolean(err('placeholder'))}
            helperText={err('placeholder') ?? 'Optional'}
            disabled={disabled}
          />
        </Stack>
      );
    }
    case 'time_picker':
      return (
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ alignItems: 'center' }}>
          <TextField
            label="Default time"
            type="time"
            value={secondsToTime(setting.defaultValue, setting.showSeconds)}
            onChange={(e) => {
              const seconds = timeToSeconds(e.target.value);
              if (seconds !== undefined) onChange({ ...setting, defaultValue: seconds });
            }}
            slotProps={{ htmlInput: { step: setting.showSeconds ? 1 : 60 } }}
            error={Boolean(err('defaultValue'))}
            helperText={err('defaultValue')}
            disabled={disabled}
          />
          <FormControlLabel
            control={
              <Switch
                checked={setting.showSeconds}
                onChange={(e) => {
                  onChange({ ...setting, showSeconds: e.target.checked });
                }}
                disabled={disabled}
              />
            }
            label="Show seconds"
          />
        </Stack>
      );
  }
}
