import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';

import { useAppDispatch } from '../../app/store';
import { noticeShown } from '../../session/authSlice';
import { orgSelected } from '../../session/orgSlice';
import { useCurrentOrg } from './useCurrentOrg';

/** The organization select of the sidebar's switcher (see OrgSwitcher). */
export function OrgSelect() {
  const dispatch = useAppDispatch();
  const { orgs, current } = useCurrentOrg();
  if (!current) return null;

  return (
    <TextField
      select
      size="small"
      label="Organization"
      value={current.id}
      onChange={(event) => {
        const chosen = orgs.find((org) => org.id === event.target.value);
        if (!chosen || chosen.id === current.id) return;
        dispatch(orgSelected(chosen.id));
        dispatch(noticeShown({ severity: 'success', text: `Switched to ${chosen.name}` }));
      }}
      sx={{ mx: 2, mt: 2, width: 'calc(100% - 32px)' }}
    >
      {orgs.map((org) => (
        <MenuItem key={org.id} value={org.id}>
          {org.name}
        </MenuItem>
      ))}
    </TextField>
  );
}
