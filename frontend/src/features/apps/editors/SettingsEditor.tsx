import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import {
  arrayMove,
  SortableContext,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineOutlinedIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DragIndicatorIcon from '@mui/icons-material/DragIndicator';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormLabel from '@mui/material/FormLabel';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

import { visuallyHidden } from '../../../components/visuallyHidden';
import { convertSetting } from '../config/convert';
import {
  isKeyed,
  newSetting,
  SETTING_TYPES,
  settingTypeLabels,
  settingKey,
  settingLabel,
} from '../config/settings';
import type { SelectOption, Setting, SettingType, SettingValue } from '../types';
import { NumberField } from './fields';
import { oneRowAtATime } from './keyboardCoordinates';
import { omit, secondsToTime, timeToSeconds } from './time';

interface Props {
  value: Setting[];
  onChange: (next: Setting[]) => void;
  /** Field errors keyed as the API names them (`settings[2].key`). */
  errors?: Record<string, string>;
  disabled?: boolean;
}

/** What a setting is called in labels: its label, key or title, else its position. */
function settingName(setting: Setting, index: number): string {
  const label = setting.type === 'group' ? setting.title : (settingLabel(setting) ?? '');
  const name = label === '' ? (settingKey(setting) ?? '') : label;
  return name ? `setting "${name}"` : `setting ${String(index + 1)}`;
}

const optionText = (value: SettingValue): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

let nextId = 0;
const newId = () => {
  nextId += 1;
  return `setting-${String(nextId)}`;
};

/**
 * The app settings editor (specification §2, §3, §4): all eleven types, type changes converted as the
 * domain converts them, reordering by drag (after 8 px) or keyboard (focus the handle, Space, arrows,
 * Space).
 */
export function SettingsEditor({ value, onChange, errors = {}, disabled = false }: Props) {
  // Stable ids for the sortable rows, kept beside the list; renewed when the list is replaced from outside.
  const [ids, setIds] = useState<string[]>(() => value.map(() => newId()));
  if (ids.length !== value.length) setIds(value.map(() => newId()));
  const [announce, setAnnounce] = useState('');

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 8 } }),
    useSensor(KeyboardSensor, { coordinateGetter: oneRowAtATime, scrollBehavior: 'auto' }),
  );

  const position = (id: UniqueIdentifier) => ids.indexOf(String(id)) + 1;
  const describe = (id: UniqueIdentifier) => {
    const index = ids.indexOf(String(id));
    const setting = value[index];
    return setting ? settingName(setting, index) : 'the setting';
  };

  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const from = ids.indexOf(String(active.id));
    const to = ids.indexOf(String(over.id));
    if (from < 0 || to < 0) return;
    setIds(arrayMove(ids, from, to));
    onChange(arrayMove(value, from, to));
  };

  const update = (index: number, next: Setting) => {
    onChange(value.map((s, i) => (i === index ? next : s)));
  };
  const remove = (index: number) => {
    setIds(ids.filter((_, i) => i !== index));
    onChange(value.filter((_, i) => i !== index));
    setAnnounce(`Removed ${settingName(value[index] ?? newSetting('toggle'), index)}.`);
  };
  const add = () => {
    setIds([...ids, newId()]);
    onChange([...value, newSetting('toggle')]);
  };

  const listError = errors.settings;
  return (
    <Stack spacing={1.5}>
      {value.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No settings yet. Settings let users configure your app from their phone.
        </Typography>
      ) : (
        <DndContext
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={onDragEnd}
          accessibility={{
            announcements: {
              onDragStart: ({ active }) =>
                `Picked up ${describe(active.id)}, at position ${String(position(active.id))} of ${String(value.length)}.`,
              onDragOver: ({ active, over }) =>
                over
                  ? `${describe(active.id)} is over position ${String(position(over.id))} of ${String(value.length)}.`
                  : `${describe(active.id)} is no longer over a position.`,
              onDragEnd: ({ active, over }) =>
                over
                  ? `Dropped ${describe(active.id)} at position ${String(position(over.id))} of ${String(value.length)}.`
                  : `Dropped ${describe(active.id)}.`,
              onDragCancel: ({ active }) =>
                `Moving ${describe(active.id)} was cancelled; it stays at position ${String(position(active.id))}.`,
            },
            screenReaderInstructions: {
              draggable:
                'To reorder a setting, press Space or Enter on its handle, move it with the arrow keys, and press Space or Enter again to drop it. Press Escape to cancel.',
            },
          }}
        >
          <SortableContext items={ids} strategy={verticalListSortingStrategy}>
            <Stack component="ol" spacing={1.5} sx={{ listStyle: 'none', m: 0, p: 0 }}>
              {value.map((setting, index) => (
                <SortableSetting
                  key={ids[index] ?? index}
                  id={ids[index] ?? String(index)}
                  index={index}
                  setting={setting}
                  errors={errors}
                  disabled={disabled}
                  onChange={(next) => {
                    update(index, next);
                  }}
                  onRemove={() => {
                    remove(index);
                  }}
                />
              ))}
            </Stack>
          </SortableContext>
        </DndContext>
      )}
      {listError && (
        <Typography color="error" variant="body2" role="alert">
          {listError}
        </Typography>
      )}
      <Box>
        <Button variant="outlined" startIcon={<AddIcon />} onClick={add} disabled={disabled}>
          Add Setting
        </Button>
      </Box>
      <Box aria-live="polite" sx={visuallyHidden}>
        {announce}
      </Box>
    </Stack>
  );
}

interface RowProps {
  id: string;
  index: number;
  setting: Setting;
  errors: Record<string, string>;
  disabled: boolean;
  onChange: (next: Setting) => void;
  onRemove: () => void;
}

function SortableSetting({ id, index, setting, errors, disabled, onChange, onRemove }: RowProps) {
  const {
    attributes,
    listeners,
    setNodeRef,
    setActivatorNodeRef,
    transform,
    transition,
    isDragging,
  } = useSortable({ id, disabled });
  const name = settingName(setting, index);
  const err = (field: string) => errors[`settings[${String(index)}].${field}`];
  const rowError = errors[`settings[${String(index)}]`];

  return (
    <Paper
      component="li"
      ref={setNodeRef}
      variant="outlined"
      data-testid="setting-row"
      sx={{
        p: 1.5,
        transform: CSS.Transform.toString(transform),
        transition,
        position: 'relative',
        zIndex: isDragging ? 1 : 'auto',
        boxShadow: isDragging ? 6 : 'none',
      }}
    >
      <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
        <IconButton
          ref={setActivatorNodeRef}
          {...attributes}
          {...listeners}
          aria-label={`Reorder ${name}`}
          disabled={disabled}
          sx={{ cursor: 'grab', touchAction: 'none', mt: 0.5 }}
        >
          <DragIndicatorIcon />
        </IconButton>
        <Stack spacing={1.5} sx={{ flex: 1, minWidth: 0 }}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
            <TextField
              select
              label="Type"
              value={setting.type}
              onChange={(e) => {
                onChange(convertSetting(setting, e.target.value as SettingType));
              }}
              disabled={disabled}
              sx={{ minWidth: 200 }}
            >
              {SETTING_TYPES.map((type) => (
                <MenuItem key={type} value={type}>
                  {settingTypeLabels[type]}
                </MenuItem>
              ))}
            </TextField>
            {isKeyed(setting.type) && 'key' in setting && (
              <TextField
                label="Key"
                value={setting.key}
                onChange={(e) => {
                  onChange({ ...setting, key: e.target.value });
                }}
                error={Boolean(err('key'))}
                helperText={err('key') ?? 'Unique, letters and numbers, no spaces.'}
                disabled={disabled}
                required
                sx={{ flex: 1 }}
              />
            )}
            {setting.type === 'group' ? (
              <TextField
                label="Group title"
                value={setting.title}
                onChange={(e) => {
                  onChange({ ...setting, title: e.target.value });
                }}
                error={Boolean(err('title'))}
                helperText={err('title')}
                disabled={disabled}
                required
                sx={{ flex: 1 }}
              />
            ) : (
              <TextField
                label="Label"
                value={setting.label}
                onChange={(e) => {
                  onChange({ ...setting, label: e.target.value });
                }}
                error={Boolean(err('label'))}
                helperText={err('label')}
                disabled={disabled}
                required
                sx={{ flex: 1 }}
              />
            )}
            {/* The browser's tooltip (as the colour scheme button's): MUI's brings Popper. */}
            <IconButton
              aria-label={`Remove ${name}`}
              title="Remove setting"
              onClick={onRemove}
              disabled={disabled}
            >
              <DeleteOutlineOutlinedIcon />
            </IconButton>
          </Stack>
          <TypeFields setting={setting} onChange={onChange} err={err} disabled={disabled} />
          {rowError && (
            <Typography color="error" variant="body2" role="alert">
              {rowError}
            </Typography>
          )}
        </Stack>
      </Stack>
    </Paper>
  );
}

interface TypeFieldsProps {
  setting: Setting;
  onChange: (next: Setting) => void;
  err: (field: string) => string | undefined;
  disabled: boolean;
}

/** The fields particular to each type. */
function TypeFields({ setting, onChange, err, disabled }: TypeFieldsProps) {
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

interface OptionsProps {
  options: SelectOption[];
  onChange: (next: SelectOption[]) => void;
  err: (field: string) => string | undefined;
  disabled: boolean;
}

/** Label and value rows of a select-like setting. */
function OptionsEditor({ options, onChange, err, disabled }: OptionsProps) {
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
