import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CircularProgress from '@mui/material/CircularProgress';
import Divider from '@mui/material/Divider';
import InputAdornment from '@mui/material/InputAdornment';
import Link from '@mui/material/Link';
import OutlinedInput from '@mui/material/OutlinedInput';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import AppsIcon from '@mui/icons-material/Apps';
import SearchIcon from '@mui/icons-material/Search';
import { Suspense, useId, useState } from 'react';
import { Link as RouterLink } from 'react-router';

import { DialogLoading } from '../../../components/DialogLoading';
import { secondaryColumn } from '../../../components/secondaryColumn';
import { paths } from '../../../config/paths';
import { useCurrentOrg } from '../../orgs';
import { useListAppsQuery } from '../api';
import { ApiKeyDialog, DeleteAppDialog, PublishDialog, ShareDialog } from '../dialogs';
import type { App } from '../types';
import type { RowAction } from './AppRowMenu';
import { filterApps } from './status';
import { AppRow } from './AppsTableRow';

export interface AppsTableProps {
  /** Show at most this many rows (the dashboard shows 3). */
  limit?: number;
  /** Show the View All link to /apps (the dashboard). */
  viewAll?: boolean;
  /** Heading of the table's card. */
  title?: string;
}

/**
 * The apps table (spec §2): search, every loading/error/empty state, status chips, row actions and their
 * dialogs, and the rejection reason of a rejected app.
 */
export function AppsTable({ limit, viewAll = false, title = 'Your Apps' }: AppsTableProps) {
  const org = useCurrentOrg();
  const orgId = org.current?.id;
  const list = useListAppsQuery({ orgId: orgId ?? '' }, { skip: !orgId });
  const [search, setSearch] = useState('');
  const [dialog, setDialog] = useState<{ kind: RowAction; app: App } | null>(null);
  const headingId = useId();

  const apps = list.data ?? [];
  const matching = filterApps(apps, search);
  const shown = limit === undefined ? matching : matching.slice(0, limit);
  const loading = org.isLoading || (Boolean(orgId) && list.isLoading);
  const failed = org.isError || (Boolean(orgId) && list.isError);

  const close = () => {
    setDialog(null);
  };

  const retry = () => {
    if (org.isError) org.refetch();
    else void list.refetch();
  };

  let body;
  if (loading) {
    body = (
      <Stack spacing={2} sx={{ alignItems: 'center', py: 6 }} role="status" aria-live="polite">
        <CircularProgress aria-hidden />
        <Typography>Loading Apps...</Typography>
      </Stack>
    );
  } else if (failed) {
    body = (
      <Box sx={{ p: 2 }}>
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={retry}>
              Try Again
            </Button>
          }
        >
          Failed to load Apps. Please try again.
        </Alert>
      </Box>
    );
  } else if (!orgId) {
    body = (
      <Box sx={{ p: 2 }}>
        <Alert severity="info">
          You have no organization yet.{' '}
          <Link component={RouterLink} to={paths.orgSettings()}>
            Create or join one
          </Link>{' '}
          to register apps.
        </Alert>
      </Box>
    );
  } else if (apps.length === 0) {
    // One empty state: the prompt to create the first app (no empty table above it).
    body = (
      <Stack spacing={2} sx={{ alignItems: 'center', py: 4, px: 2, textAlign: 'center' }}>
        <AppsIcon color="action" sx={{ fontSize: 48 }} aria-hidden />
        <Typography color="text.secondary">No apps to display</Typography>
        <Typography variant="h6" component="p">
          Get started by creating your first app
        </Typography>
        <Button
          component={RouterLink}
          to={paths.appCreate}
          variant="contained"
          startIcon={<AddIcon />}
        >
          Create App
        </Button>
      </Stack>
    );
  } else {
    body = (
      <>
        <TableContainer>
          <Table aria-labelledby={headingId} size="medium">
            <TableHead>
              <TableRow>
                <TableCell>Display Name</TableCell>
                <TableCell sx={secondaryColumn}>Package Name</TableCell>
                <TableCell sx={secondaryColumn}>Created</TableCell>
                <TableCell>Status</TableCell>
                <TableCell align="right">Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {shown.length === 0 ? (
                <TableRow>
                  <TableCell colSpan={5} align="center" sx={{ py: 4, color: 'text.secondary' }}>
                    {search.trim() ? 'No apps match your search criteria' : 'No apps to display'}
                  </TableCell>
                </TableRow>
              ) : (
                shown.map((app) => (
                  <AppRow
                    key={app.packageName}
                    app={app}
                    onAction={(kind) => {
                      setDialog({ kind, app });
                    }}
                  />
                ))
              )}
            </TableBody>
          </Table>
        </TableContainer>
      </>
    );
  }

  return (
    <Card variant="outlined" component="section" aria-labelledby={headingId}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ p: 2, justifyContent: 'space-between', alignItems: { sm: 'center' } }}
      >
        <Typography id={headingId} variant="h6" component="h2">
          {title}
        </Typography>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          {/* The outlined input alone: a TextField would bring the label, helper text and select code. */}
          <OutlinedInput
            size="small"
            placeholder="Search your apps..."
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
            }}
            startAdornment={
              <InputAdornment position="start">
                <SearchIcon fontSize="small" />
              </InputAdornment>
            }
            slotProps={{ input: { 'aria-label': 'Search your apps' } }}
          />
          {viewAll && (
            <Link component={RouterLink} to={paths.apps} sx={{ whiteSpace: 'nowrap' }}>
              View All
            </Link>
          )}
        </Stack>
      </Stack>
      <Divider />
      {body}
      {orgId && dialog && (
        <Suspense fallback={<DialogLoading onClose={close} />}>
          {dialog.kind === 'apiKey' && (
            <ApiKeyDialog
              open
              onClose={close}
              orgId={orgId}
              packageName={dialog.app.packageName}
              appName={dialog.app.name}
            />
          )}
          {dialog.kind === 'share' && (
            <ShareDialog open onClose={close} orgId={orgId} app={dialog.app} />
          )}
          {dialog.kind === 'publish' && (
            <PublishDialog open onClose={close} orgId={orgId} app={dialog.app} />
          )}
          {dialog.kind === 'delete' && (
            <DeleteAppDialog open onClose={close} orgId={orgId} app={dialog.app} />
          )}
        </Suspense>
      )}
    </Card>
  );
}
