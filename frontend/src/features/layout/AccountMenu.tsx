import Avatar from '@mui/material/Avatar';
import IconButton from '@mui/material/IconButton';
import PersonIcon from '@mui/icons-material/Person';
import { lazy, Suspense, useId, useState, type MouseEvent } from 'react';

import { useAppSelector } from '../../app/store';
import { selectAuthUser } from '../../session/authSlice';

// The menu (with its popover and focus trap) is loaded on first use only, as the colour-mode menu is, to
// keep it out of the code every page downloads first.
const loadMenu = () => import('./AccountMenuPopover');
const AccountMenuPopover = lazy(async () => ({
  default: (await loadMenu()).AccountMenuPopover,
}));

/**
 * The account menu of the top bar (issue 48, item 10): an avatar button whose menu shows the signed-in
 * e-mail and leads to Account Security, Access Tokens and Sign Out. `onSignOut` ends this session only
 * (the layout's sign-out); `signingOut` disables Sign Out while it runs.
 */
export function AccountMenu({
  signingOut,
  onSignOut,
}: {
  signingOut: boolean;
  onSignOut: () => void;
}) {
  // Only the address: the menu does not render again when the session is refreshed.
  const email = useAppSelector((state) => selectAuthUser(state)?.email ?? '');
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const menuId = useId();
  const buttonId = useId();
  const initial = email.charAt(0).toUpperCase();

  const preload = () => {
    void loadMenu();
  };
  const open = (event: MouseEvent<HTMLElement>) => {
    setAnchor(event.currentTarget);
  };
  const close = () => {
    setAnchor(null);
  };

  return (
    <>
      <IconButton
        id={buttonId}
        aria-label="Account menu"
        title={email ? `Signed in as ${email}` : undefined}
        aria-haspopup="menu"
        aria-controls={anchor ? menuId : undefined}
        aria-expanded={anchor ? 'true' : undefined}
        onClick={open}
        onPointerEnter={preload}
        onFocus={preload}
        sx={{ p: 0.5, flexShrink: 0 }}
      >
        {/* The avatar is the button's picture: its name is the button's label. */}
        <Avatar
          aria-hidden="true"
          sx={{
            width: 32,
            height: 32,
            fontSize: '1rem',
            fontWeight: 700,
            bgcolor: 'primary.main',
            color: 'primary.contrastText',
          }}
        >
          {initial || <PersonIcon fontSize="small" />}
        </Avatar>
      </IconButton>
      {anchor && (
        <Suspense fallback={null}>
          <AccountMenuPopover
            id={menuId}
            labelledBy={buttonId}
            anchor={anchor}
            email={email}
            signingOut={signingOut}
            onSignOut={() => {
              close();
              onSignOut();
            }}
            onClose={close}
          />
        </Suspense>
      )}
    </>
  );
}
