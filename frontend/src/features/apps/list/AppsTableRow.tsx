import Avatar from '@mui/material/Avatar';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import AppsIcon from '@mui/icons-material/Apps';
import MoreVertIcon from '@mui/icons-material/MoreVert';
import { lazy, Suspense, useId, useState, type MouseEvent } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';

import { secondaryColumn } from '../../../components/secondaryColumn';
import { paths } from '../../../config/paths';
import type { App } from '../types';
import type { RowAction } from './AppRowMenu';
import { StatusChip } from './StatusChip';

// A row's actions menu (with its popover) loads when a pointer or the focus reaches a row's menu button,
// like the colour scheme menu.
const loadMenu = () => import('./AppRowMenu');
const AppRowMenu = lazy(async () => ({ default: (await loadMenu()).AppRowMenu }));

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

function createdOn(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : dateFormat.format(date);
}

/** One app of the table: logo and name, package, created date, status (and a rejection's reason), actions. */
export function AppRow({ app, onAction }: { app: App; onAction: (kind: RowAction) => void }) {
  const navigate = useNavigate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const menuId = useId();

  const preloadMenu = () => {
    void loadMenu();
  };
  const closeMenu = () => {
    setAnchor(null);
  };

  return (
    <TableRow hover>
      <TableCell>
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
          <Avatar
            src={app.logoURL || undefined}
            alt=""
            variant="rounded"
            sx={{ width: 32, height: 32 }}
          >
            <AppsIcon fontSize="small" />
          </Avatar>
          <Link component={RouterLink} to={paths.appEdit(app.packageName)} underline="hover">
            {app.name}
          </Link>
        </Stack>
      </TableCell>
      <TableCell sx={{ ...secondaryColumn, fontFamily: 'monospace' }}>{app.packageName}</TableCell>
      <TableCell sx={secondaryColumn}>{createdOn(app.createdAt)}</TableCell>
      <TableCell>
        <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
          <StatusChip status={app.appStoreStatus} />
          {app.appStoreStatus === 'REJECTED' && (
            <Tooltip title={app.reviewNotes ?? 'No notes were given.'} describeChild>
              <Link
                component={RouterLink}
                to={paths.appEdit(app.packageName)}
                variant="body2"
                color="error"
              >
                View Rejection Reason
              </Link>
            </Tooltip>
          )}
        </Stack>
      </TableCell>
      <TableCell align="right">
        <IconButton
          aria-label={`Actions for ${app.name}`}
          aria-haspopup="menu"
          aria-controls={anchor ? menuId : undefined}
          aria-expanded={anchor ? 'true' : undefined}
          onClick={(event: MouseEvent<HTMLElement>) => {
            setAnchor(event.currentTarget);
          }}
          onPointerEnter={preloadMenu}
          onFocus={preloadMenu}
        >
          <MoreVertIcon />
        </IconButton>
        {anchor && (
          <Suspense fallback={null}>
            <AppRowMenu
              id={menuId}
              anchor={anchor}
              app={app}
              onEdit={() => {
                closeMenu();
                void navigate(paths.appEdit(app.packageName));
              }}
              onChoose={(kind) => {
                closeMenu();
                onAction(kind);
              }}
              onClose={closeMenu}
            />
          </Suspense>
        )}
      </TableCell>
    </TableRow>
  );
}
