import Box from '@mui/material/Box';
import Divider from '@mui/material/Divider';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import MenuItem from '@mui/material/MenuItem';
import MenuList from '@mui/material/MenuList';
import Popover from '@mui/material/Popover';
import Typography from '@mui/material/Typography';
import KeyIcon from '@mui/icons-material/Key';
import LogoutIcon from '@mui/icons-material/Logout';
import SecurityIcon from '@mui/icons-material/Security';
import { useId, type KeyboardEvent } from 'react';
import { Link as RouterLink } from 'react-router';

import { EmailAddress } from '../../components/EmailAddress';
import { paths } from '../../config/paths';

interface Props {
  id: string;
  labelledBy: string;
  anchor: HTMLElement;
  email: string;
  signingOut: boolean;
  onSignOut: () => void;
  onClose: () => void;
}

/**
 * The account menu's popover: the signed-in e-mail above the menu (it describes the menu), then Account
 * Security, Access Tokens and Sign Out. A popover holding a menu list rather than MUI's Menu, so that the
 * address stands outside the menu's items: arrow keys move between the three actions only. As in MUI's Menu,
 * the first item takes the focus, Escape and Tab close it, and the focus goes back to the avatar button.
 */
export function AccountMenuPopover({
  id,
  labelledBy,
  anchor,
  email,
  signingOut,
  onSignOut,
  onClose,
}: Props) {
  const emailId = useId();
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Tab') {
      event.preventDefault();
      onClose();
    }
  };
  return (
    <Popover
      open
      anchorEl={anchor}
      onClose={onClose}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
      transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      slotProps={{ paper: { sx: { mt: 0.5, minWidth: 240, maxWidth: 320 } } }}
    >
      {email && (
        <Box id={emailId} sx={{ px: 2, pt: 1.5, pb: 1 }}>
          <Typography variant="caption" color="text.secondary" component="div">
            Signed in as
          </Typography>
          <Typography variant="body2" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
            <EmailAddress address={email} />
          </Typography>
        </Box>
      )}
      {email && <Divider />}
      <MenuList
        id={id}
        autoFocusItem
        aria-labelledby={labelledBy}
        aria-describedby={email ? emailId : undefined}
        onKeyDown={onKeyDown}
      >
        <MenuItem component={RouterLink} to={paths.accountSecurity} onClick={onClose}>
          <ListItemIcon>
            <SecurityIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>Account Security</ListItemText>
        </MenuItem>
        <MenuItem component={RouterLink} to={paths.accessTokens} onClick={onClose}>
          <ListItemIcon>
            <KeyIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>Access Tokens</ListItemText>
        </MenuItem>
        <Divider />
        <MenuItem onClick={onSignOut} disabled={signingOut}>
          <ListItemIcon>
            <LogoutIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>Sign Out</ListItemText>
        </MenuItem>
      </MenuList>
    </Popover>
  );
}
