import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import DeleteOutlineOutlinedIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DragIndicatorIcon from '@mui/icons-material/DragIndicator';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';

import { convertSetting } from '../config/convert';
import { isKeyed, SETTING_TYPES, settingTypeLabels } from '../config/settings';
import type { Setting, SettingType } from '../types';
import { settingName } from './settingText';
import { SettingTypeFields } from './SettingTypeFields';

interface RowProps {
  id: string;
  index: number;
  setting: Setting;
  errors: Record<string, string>;
  disabled: boolean;
  onChange: (next: Setting) => void;
  onRemove: () => void;
}

/** One setting of the editor: its drag handle, type, key and label, remove, and its type's own fields. */
export function SortableSetting({
  id,
  index,
  setting,
  errors,
  disabled,
  onChange,
  onRemove,
}: RowProps) {
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
          <SettingTypeFields setting={setting} onChange={onChange} err={err} disabled={disabled} />
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
