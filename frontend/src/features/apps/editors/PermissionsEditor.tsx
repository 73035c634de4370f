import Chip from '@mui/material/Chip';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';

import { EditableRows } from './EditableRows';
import {
  availablePermissions,
  MAX_DESCRIPTION_LEN,
  newPermission,
  permissionCategory,
  permissionLabels,
  preview,
  type Permission,
  type PermissionType,
} from './types';

interface Props {
  value: Permission[];
  onChange: (next: Permission[]) => void;
  disabled?: boolean;
  /** A server or form error about the list as a whole. */
  error?: string;
}

/**
 * The permissions editor (specification §2, §3, §5): each type at most once; the legacy NOTIFICATIONS stays
 * on a row that has it but is never offered for a new one.
 */
export function PermissionsEditor({ value, onChange, disabled, error }: Props) {
  return (
    <Stack spacing={1}>
      <EditableRows
        items={value}
        onChange={onChange}
        makeNew={newPermission}
        rowName={(p) => `${permissionLabels[p.type]} permission`}
        addLabel="Add Permission"
        emptyText="No permissions requested."
        disabled={disabled}
        summary={(p) => (
          <Stack spacing={0.25}>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Typography sx={{ fontWeight: 500 }}>{permissionLabels[p.type]}</Typography>
              <Chip size="small" label={permissionCategory(p.type)} />
            </Stack>
            <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
              {p.description ? preview(p.description) : 'No description'}
            </Typography>
          </Stack>
        )}
        editor={(p, index, update) => {
          // This row's own type stays selectable (even the legacy one it already has).
          const others = value.filter((_, i) => i !== index);
          const choices: PermissionType[] = [
            p.type,
            ...availablePermissions(others).filter((t) => t !== p.type),
          ];
          return (
            <>
              <TextField
                select
                label="Permission type"
                value={p.type}
                onChange={(e) => {
                  update({ ...p, type: e.target.value as PermissionType });
                }}
                disabled={disabled}
              >
                {choices.map((type) => (
                  <MenuItem key={type} value={type}>
                    {permissionLabels[type]}
                  </MenuItem>
                ))}
              </TextField>
              <TextField
                label="Description"
                helperText="Why your app needs this permission (shown to users)."
                value={p.description ?? ''}
                onChange={(e) => {
                  update({ ...p, description: e.target.value });
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
