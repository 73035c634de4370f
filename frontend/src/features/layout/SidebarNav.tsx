import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Toolbar from '@mui/material/Toolbar';
import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import AppsIcon from '@mui/icons-material/Apps';
import DashboardIcon from '@mui/icons-material/Dashboard';
import GroupIcon from '@mui/icons-material/Group';
import HistoryIcon from '@mui/icons-material/History';
import KeyIcon from '@mui/icons-material/Key';
import MenuBookIcon from '@mui/icons-material/MenuBook';
import SecurityIcon from '@mui/icons-material/Security';
import SettingsIcon from '@mui/icons-material/Settings';
import type { ReactNode } from 'react';
import { NavLink } from 'react-router';

import { isMfaRefusal } from '../../api/errors';
import { useAppSelector } from '../../app/store';
import { NewTabHint } from '../../components/NewTabHint';
import { externalLinkProps } from '../../components/externalLinkProps';
import { paths } from '../../config/paths';
import { useGetAdminCheckQuery } from '../auth';
import { selectCoreToken } from '../../session/authSlice';
import { OrgSwitcher, useCurrentOrg } from '../orgs';
import { usePublicConfig } from '../publicConfig';

interface Item {
  to: string;
  label: string;
  icon: ReactNode;
}

const ITEMS: Item[] = [
  { to: paths.dashboard, label: 'Dashboard', icon: <DashboardIcon /> },
  { to: paths.apps, label: 'My Apps', icon: <AppsIcon /> },
  { to: paths.orgSettings(), label: 'Organization Settings', icon: <SettingsIcon /> },
  { to: paths.members, label: 'Members', icon: <GroupIcon /> },
];

/**
 * The sidebar's links (spec §2); the current page's link is highlighted. Audit Log shows to the current
 * organization's admins only; Admin Panel only when the admin check says so (or the staff API refuses it for
 * want of a second factor), and the check runs only once a core token is stored. The drawer (small screens)
 * also links to Account Security and Access Tokens, which the top bar keeps in its account menu: a phone's
 * navigation lists every page.
 */
export function SidebarNav({ onNavigate }: { onNavigate?: () => void }) {
  const config = usePublicConfig();
  const coreToken = useAppSelector(selectCoreToken);
  const { data: adminCheck, error: adminCheckError } = useGetAdminCheckQuery(undefined, {
    skip: !coreToken,
  });
  // Platform staff whose session has not passed a second factor: the staff API refuses the check, and the
  // Admin Panel says how to get in.
  const staff = adminCheck?.isAdmin === true || isMfaRefusal(adminCheckError);
  const { isAdmin: orgAdmin } = useCurrentOrg();

  const link = ({ to, label, icon }: Item) => (
    <ListItem key={to} disablePadding>
      <ListItemButton
        component={NavLink}
        to={to}
        end={to === paths.dashboard}
        onClick={onNavigate}
        sx={{
          borderRadius: 1,
          mx: 1,
          '&.active': {
            bgcolor: 'action.selected',
            color: 'primary.main',
            fontWeight: 600,
            '& .MuiListItemIcon-root': { color: 'primary.main' },
          },
        }}
      >
        <ListItemIcon sx={{ minWidth: 40 }}>{icon}</ListItemIcon>
        <ListItemText primary={label} />
      </ListItemButton>
    </ListItem>
  );

  return (
    <nav aria-label="Main">
      {/* Room for the fixed top bar when this is the small-screen drawer. */}
      {onNavigate && <Toolbar />}
      <OrgSwitcher />
      <List sx={{ py: 2 }}>
        {ITEMS.map(link)}
        {orgAdmin && link({ to: paths.auditLog, label: 'Audit Log', icon: <HistoryIcon /> })}
        <ListItem disablePadding>
          <ListItemButton
            component="a"
            href={config.docsUrl}
            {...externalLinkProps}
            sx={{ borderRadius: 1, mx: 1 }}
          >
            <ListItemIcon sx={{ minWidth: 40 }}>
              <MenuBookIcon />
            </ListItemIcon>
            <ListItemText
              primary={
                <>
                  Documentation
                  <NewTabHint />
                </>
              }
            />
          </ListItemButton>
        </ListItem>
        {staff && link({ to: paths.admin, label: 'Admin Panel', icon: <AdminPanelSettingsIcon /> })}
        {/* On a phone the drawer lists them too (the account menu of the top bar has them at every width). */}
        {onNavigate &&
          link({ to: paths.accountSecurity, label: 'Account Security', icon: <SecurityIcon /> })}
        {onNavigate && link({ to: paths.accessTokens, label: 'Access Tokens', icon: <KeyIcon /> })}
      </List>
    </nav>
  );
}
