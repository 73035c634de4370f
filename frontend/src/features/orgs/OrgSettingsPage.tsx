import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { useNavigate, useSearchParams } from 'react-router';

import { DialogLoading } from '../../components/DialogLoading';
import { useAppDispatch } from '../../app/store';
import { paths } from '../../config/paths';
import { JoinedBanner } from './JoinedBanner';
import { OrgTwoFactorCard } from './OrgTwoFactorCard';
import { orgSelected } from '../../session/orgSlice';
import type { Organization } from './types';
import { useCurrentOrg } from './useCurrentOrg';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { DeleteOrganization, type OwnedApps } from './DeleteOrganization';
import { OrgProfileForm } from './OrgProfileForm';

export type { OwnedApps } from './DeleteOrganization';

// The dialog loads when it is first opened.
const NewOrganizationDialog = lazy(async () => ({
  default: (await import('./OrgSettingsDialogs')).NewOrganizationDialog,
}));

const NEW_ORG = '__new__';

/**
 * `/org-settings` (spec §2): the selector, the profile form (read-only for members), delete. With
 * `ownedApps`, deleting an organization that still owns apps is refused before its name is typed;
 * `adminSections` adds what other features show its admins (above Delete).
 */
export function OrgSettingsPage({
  ownedApps,
  adminSections,
}: { ownedApps?: OwnedApps; adminSections?: (org: Organization) => ReactNode } = {}) {
  useDocumentTitle('Organization Settings');
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { orgs, current, isAdmin, isLoading, isError, refetch } = useCurrentOrg();
  const requestedId = params.get('orgId');

  // `?orgId=` selects that organization once it is among the user's.
  useEffect(() => {
    if (requestedId && orgs.some((org) => org.id === requestedId) && current?.id !== requestedId) {
      dispatch(orgSelected(requestedId));
    }
  }, [requestedId, orgs, current, dispatch]);

  const [creating, setCreating] = useState(false);
  // Once asked for, the dialog stays mounted (it fades out when it closes).
  const [creatingAsked, setCreatingAsked] = useState(false);
  const startCreating = () => {
    setCreating(true);
    setCreatingAsked(true);
  };
  const closeCreating = () => {
    setCreating(false);
  };

  if (isLoading) {
    return (
      <Stack sx={{ alignItems: 'center', py: 8 }} role="status" aria-live="polite">
        <CircularProgress aria-label="Loading organization" />
      </Stack>
    );
  }
  if (isError) {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={refetch}>
            Retry
          </Button>
        }
      >
        Failed to load organization data. Please try again.
      </Alert>
    );
  }

  return (
    <Stack spacing={3}>
      <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
        Organization Settings
      </Typography>
      <JoinedBanner fallbackName={current?.name} />
      {params.get('existing') === 'true' && (
        <Alert severity="info">You are already a member of this organization.</Alert>
      )}
      {orgs.length === 0 || !current ? (
        <Card variant="outlined">
          <CardContent>
            <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
              <Typography>
                You don&apos;t have an active organization. Please create or join an organization
                first.
              </Typography>
              <Button variant="contained" startIcon={<AddIcon />} onClick={startCreating}>
                New Organization
              </Button>
            </Stack>
          </CardContent>
        </Card>
      ) : (
        <>
          <TextField
            select
            label="Organization"
            value={current.id}
            onChange={(event) => {
              if (event.target.value === NEW_ORG) startCreating();
              else dispatch(orgSelected(event.target.value));
            }}
            sx={{ maxWidth: 420 }}
          >
            {orgs.map((org) => (
              <MenuItem key={org.id} value={org.id}>
                {org.name}
              </MenuItem>
            ))}
            <MenuItem value={NEW_ORG}>
              <AddIcon fontSize="small" sx={{ mr: 1 }} /> New Organization
            </MenuItem>
          </TextField>
          <OrgProfileForm key={current.id} org={current} editable={isAdmin} />
          {isAdmin && <OrgTwoFactorCard key={`two-factor-${current.id}`} org={current} />}
          {isAdmin && adminSections?.(current)}
          {isAdmin && (
            <DeleteOrganization
              org={current}
              ownedApps={ownedApps?.orgId === current.id ? ownedApps : undefined}
              onDeleted={() => {
                dispatch(orgSelected(null));
                void navigate(paths.orgSettings(), { replace: true });
              }}
            />
          )}
        </>
      )}
      {creatingAsked && (
        <Suspense fallback={<DialogLoading onClose={closeCreating} />}>
          <NewOrganizationDialog open={creating} onClose={closeCreating} />
        </Suspense>
      )}
    </Stack>
  );
}
