import Alert from '@mui/material/Alert';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Container from '@mui/material/Container';
import Divider from '@mui/material/Divider';
import Link from '@mui/material/Link';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import AppsIcon from '@mui/icons-material/Apps';
import InstallMobileIcon from '@mui/icons-material/InstallMobile';
import { Link as RouterLink, useParams } from 'react-router';

import { InstallQrCode } from '../../components/InstallQrCode';
import { Logo } from '../../components/Logo';
import { paths } from '../../config/paths';
import {
  errorStatus,
  hardwareLabels,
  permissionLabels,
  useGetTesterViewQuery,
  type TesterView,
} from '../apps';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { companionInstallLink, usePublicConfig } from '../publicConfig';

/** `/install/:token` (PRODUCT.md §4, §9): what a tester holding a share link sees; no sign-in needed. */
export function TesterPage() {
  const { token = '' } = useParams();
  const view = useGetTesterViewQuery(token, { skip: !token });
  useDocumentTitle(view.data ? `Test ${view.data.name}` : 'Test an app');

  let body;
  if (view.isLoading) {
    body = (
      <Stack spacing={2} sx={{ alignItems: 'center', py: 8 }} role="status" aria-live="polite">
        <CircularProgress aria-hidden />
        <Typography>Loading app...</Typography>
      </Stack>
    );
  } else if (!token || errorStatus(view.error) === 404) {
    body = (
      <Stack spacing={2} sx={{ alignItems: 'center', textAlign: 'center', py: 8 }}>
        <Typography variant="h4" component="h1">
          Test link not found
        </Typography>
        <Typography color="text.secondary" sx={{ maxWidth: 480 }}>
          This link is unknown or has been reset by the app&apos;s developer. Ask them for the
          current link.
        </Typography>
      </Stack>
    );
  } else if (view.isError || !view.data) {
    body = (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={() => void view.refetch()}>
            Try Again
          </Button>
        }
      >
        Failed to load the app. Please try again.
      </Alert>
    );
  } else {
    body = <TesterDetails app={view.data} installUrl={installUrl(token)} />;
  }

  return (
    <Box sx={{ minHeight: '100dvh', bgcolor: 'background.default' }}>
      <title>
        {view.data
          ? `Test ${view.data.name} · Developer Portal`
          : 'App test link · Developer Portal'}
      </title>
      <Box component="header" sx={{ borderBottom: 1, borderColor: 'divider' }}>
        <Container maxWidth="md">
          <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', py: 1.5 }}>
            <Link
              component={RouterLink}
              to={paths.home}
              underline="none"
              color="inherit"
              sx={{ display: 'inline-flex', alignItems: 'center', gap: 1.5 }}
            >
              <Logo />
              <Typography sx={{ fontWeight: 700 }}>Developer Portal</Typography>
            </Link>
          </Stack>
        </Container>
      </Box>
      <Container component="main" maxWidth="md" sx={{ py: 4 }}>
        {body}
      </Container>
    </Box>
  );
}

/** The page's own address: the install link the QR code carries. */
function installUrl(token: string): string {
  return typeof window === 'undefined'
    ? paths.install(token)
    : new URL(paths.install(token), window.location.origin).href;
}

function TesterDetails({ app, installUrl }: { app: TesterView; installUrl: string }) {
  // The companion app's own install link, when the server names its format (PORTAL_COMPANION_INSTALL_URL).
  const { companionInstallUrl } = usePublicConfig();
  return (
    <Stack spacing={3}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Avatar
          src={app.logoURL || undefined}
          alt={`${app.name} logo`}
          variant="rounded"
          sx={{ width: 72, height: 72 }}
        >
          <AppsIcon />
        </Avatar>
        <div>
          <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
            {app.name}
          </Typography>
          <Typography color="text.secondary" sx={{ fontFamily: 'monospace' }}>
            {app.packageName}
          </Typography>
        </div>
      </Stack>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={3}
        sx={{ alignItems: { xs: 'stretch', sm: 'center' } }}
      >
        <Stack spacing={2} sx={{ flex: 1, alignItems: 'flex-start' }}>
          <Alert severity="info" sx={{ alignSelf: 'stretch' }}>
            You have been invited to test this app. This page is read-only: install the app on your
            glasses through the companion app to try it. On a computer, scan the code with the phone
            that runs the companion app to open this page there.
          </Alert>
          {companionInstallUrl && (
            <Button
              variant="contained"
              startIcon={<InstallMobileIcon />}
              href={companionInstallLink(companionInstallUrl, app.packageName, installUrl)}
            >
              Open in the companion app
            </Button>
          )}
        </Stack>
        <InstallQrCode url={installUrl} caption="Scan to open this page on your phone" />
      </Stack>
      <Card variant="outlined">
        <CardContent>
          <Stack spacing={2.5}>
            <section aria-labelledby="tester-about">
              <Typography id="tester-about" variant="h6" component="h2" gutterBottom>
                About
              </Typography>
              <Typography sx={{ whiteSpace: 'pre-line' }}>{app.description}</Typography>
              <Box sx={{ mt: 1 }}>
                <Chip
                  size="small"
                  label={app.appType === 'standard' ? 'Foreground App' : 'Background App'}
                />
              </Box>
            </section>
            {app.onboardingInstructions.trim() && (
              <>
                <Divider />
                <section aria-labelledby="tester-onboarding">
                  <Typography id="tester-onboarding" variant="h6" component="h2" gutterBottom>
                    Getting started
                  </Typography>
                  <Typography sx={{ whiteSpace: 'pre-line' }}>
                    {app.onboardingInstructions}
                  </Typography>
                </section>
              </>
            )}
            <Divider />
            <section aria-labelledby="tester-permissions">
              <Typography id="tester-permissions" variant="h6" component="h2">
                Permissions
              </Typography>
              {app.permissions.length === 0 ? (
                <Typography color="text.secondary">This app asks for no permissions.</Typography>
              ) : (
                <List dense>
                  {app.permissions.map((permission) => (
                    <ListItem key={permission.type} disableGutters>
                      <ListItemText
                        primary={permissionLabels[permission.type]}
                        secondary={permission.description}
                      />
                    </ListItem>
                  ))}
                </List>
              )}
            </section>
            <Divider />
            <section aria-labelledby="tester-hardware">
              <Typography id="tester-hardware" variant="h6" component="h2">
                Hardware
              </Typography>
              {app.hardwareRequirements.length === 0 ? (
                <Typography color="text.secondary">No special hardware is needed.</Typography>
              ) : (
                <List dense>
                  {app.hardwareRequirements.map((hardware) => (
                    <ListItem key={hardware.type} disableGutters>
                      <ListItemText
                        primary={`${hardwareLabels[hardware.type]} (${
                          hardware.level === 'REQUIRED' ? 'required' : 'optional'
                        })`}
                        secondary={hardware.description}
                      />
                    </ListItem>
                  ))}
                </List>
              )}
            </section>
            {app.webviewURL && (
              <>
                <Divider />
                <Typography>
                  Companion page:{' '}
                  <Link href={app.webviewURL} target="_blank" rel="noopener noreferrer">
                    {app.webviewURL}
                  </Link>
                </Typography>
              </>
            )}
          </Stack>
        </CardContent>
      </Card>
    </Stack>
  );
}
