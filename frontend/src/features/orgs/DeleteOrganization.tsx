import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink } from 'react-router';

import { DialogLoading } from '../../components/DialogLoading';
import { paths } from '../../config/paths';
import type { Organization } from './types';

// The dialog loads when it is first opened.
const DeleteOrganizationDialog = lazy(async () => ({
  default: (await import('./OrgSettingsDialogs')).DeleteOrganizationDialog,
}));

/**
 * How many apps an organization owns, as the apps feature knows it (the route passes it in: the apps
 * feature builds on this one, so this one cannot ask it). `count` is `null` while it loads or when it
 * could not be read.
 */
export interface OwnedApps {
  orgId: string;
  count: number | null;
  loading: boolean;
}

/** Delete, for admins: refused while the organization owns apps, else confirmed by typing its name. */
export function DeleteOrganization({
  org,
  ownedApps,
  onDeleted,
}: {
  org: Organization;
  ownedApps: OwnedApps | undefined;
  onDeleted: () => void;
}) {
  const [open, setOpen] = useState(false);
  // Once asked for, the confirmation stays mounted (it fades out when it closes).
  const [asked, setAsked] = useState(false);
  const close = () => {
    setOpen(false);
  };
  const appCount = ownedApps?.count ?? 0;
  // The server refuses it too (409): said here before anything is typed.
  const ownsApps = appCount > 0;
  const blockedId = `delete-org-blocked-${org.id}`;

  return (
    <Card variant="outlined" sx={{ borderColor: 'error.main' }}>
      <CardContent>
        <Stack spacing={1.5} sx={{ alignItems: 'flex-start' }}>
          <Typography variant="h6" component="h2">
            Delete organization
          </Typography>
          <Typography color="text.secondary">
            Deleting removes the organization and its members. An organization that still owns apps
            cannot be deleted: move or delete its apps first.
          </Typography>
          {ownsApps && (
            <Alert
              severity="info"
              id={blockedId}
              sx={{ alignSelf: 'stretch' }}
              action={
                <Button component={RouterLink} to={paths.apps} color="inherit" size="small">
                  My Apps
                </Button>
              }
            >
              {org.name} owns {appCount === 1 ? 'an app' : `${String(appCount)} apps`}: move{' '}
              {appCount === 1 ? 'it' : 'them'} to another organization or delete{' '}
              {appCount === 1 ? 'it' : 'them'} first.
            </Alert>
          )}
          <Button
            color="error"
            variant="outlined"
            disabled={ownsApps || ownedApps?.loading === true}
            aria-describedby={ownsApps ? blockedId : undefined}
            onClick={() => {
              setOpen(true);
              setAsked(true);
            }}
          >
            Delete Organization
          </Button>
        </Stack>
      </CardContent>
      {asked && (
        <Suspense fallback={<DialogLoading onClose={close} />}>
          <DeleteOrganizationDialog
            open={open}
            org={org}
            ownsApps={ownsApps}
            onClose={close}
            onDeleted={onDeleted}
          />
        </Suspense>
      )}
    </Card>
  );
}
