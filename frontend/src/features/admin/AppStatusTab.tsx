import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import { useGetAdminAppQuery, useGetSubmittedAppsQuery } from './api';
import { AppLogo } from './AppLogo';
import { usDate } from './format';
import { LoadError, Loading } from './states';

function MonitorNotice() {
  return (
    <Alert severity="info">
      <AlertTitle>Uptime monitoring is not available yet</AlertTitle>
      Uptime, online status and daily health bars arrive with the uptime monitor. Until it runs
      there is no health data to show, so none is shown.
    </Alert>
  );
}

/**
 * The App Status tab (spec §2). Its uptime figures belong to the uptime monitor, which does not run yet:
 * the tab says so and lists the apps under review, each opening its own closable tab.
 */
export function AppStatusTab({ onOpen }: { onOpen: (packageName: string) => void }) {
  const submitted = useGetSubmittedAppsQuery();
  let apps;
  if (submitted.isLoading) apps = <Loading label="Loading apps..." />;
  else if (!submitted.data) {
    apps = (
      <LoadError
        text="Failed to load the submitted apps. Please try again."
        onRetry={() => void submitted.refetch()}
      />
    );
  } else if (submitted.data.length === 0) {
    apps = <Typography color="text.secondary">No pending submissions</Typography>;
  } else {
    apps = (
      <List
        aria-label="Apps under review"
        sx={{ border: 1, borderColor: 'divider', borderRadius: 1 }}
      >
        {submitted.data.map((app) => (
          <ListItemButton
            key={app.packageName}
            onClick={() => {
              onOpen(app.packageName);
            }}
            divider
          >
            <Box sx={{ mr: 2, display: 'flex' }}>
              <AppLogo src={app.logoURL} size={32} />
            </Box>
            <ListItemText
              primary={app.name}
              secondary={app.packageName}
              slotProps={{ secondary: { sx: { wordBreak: 'break-all' } } }}
            />
          </ListItemButton>
        ))}
      </List>
    );
  }
  return (
    <Stack spacing={2}>
      <MonitorNotice />
      {apps}
    </Stack>
  );
}

/** The closable tab of one app (spec §2 "Service Status"): what is known, and no invented figures. */
export function AppDetailTab({ packageName }: { packageName: string }) {
  const app = useGetAdminAppQuery(packageName);
  if (app.isLoading) return <Loading label="Loading app details..." />;
  if (!app.data) {
    if (app.error && 'status' in app.error && app.error.status === 404) {
      return <Alert severity="warning">App not found</Alert>;
    }
    return (
      <LoadError
        text="Error loading app details. Please try again."
        onRetry={() => void app.refetch()}
      />
    );
  }
  const data = app.data;
  return (
    <Stack spacing={2}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <AppLogo src={data.logoURL} size={56} />
        <div>
          <Typography variant="h6" component="h2">
            {data.name}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {data.packageName || 'N/A'} · Submitted {usDate(data.updatedAt)}
          </Typography>
        </div>
      </Stack>
      <MonitorNotice />
    </Stack>
  );
}
