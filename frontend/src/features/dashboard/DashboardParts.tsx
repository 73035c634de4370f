import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import { Link as RouterLink } from 'react-router';

import { useAppSelector } from '../../app/store';
import { NewTabHint } from '../../components/NewTabHint';
import { externalLinkProps } from '../../components/externalLinkProps';
import { paths } from '../../config/paths';
import { selectAuthUser } from '../../session/authSlice';
import { usePublicConfig } from '../publicConfig';

/** The dashboard's title, who is signed in, and Create App. */
export function DashboardHeading() {
  const user = useAppSelector(selectAuthUser);
  return (
    <Stack
      direction={{ xs: 'column', sm: 'row' }}
      spacing={2}
      sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
    >
      <div>
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          Developer Dashboard
        </Typography>
        {user?.email ? (
          <Typography color="text.secondary">Signed in as {user.email}</Typography>
        ) : (
          // The page built ahead of time knows nobody: the line keeps its place.
          <Typography color="text.secondary" aria-hidden="true">
            <Skeleton sx={{ width: 240, maxWidth: '60%' }} />
          </Typography>
        )}
      </div>
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
}

/** Getting Started: what to build, with the quick start and the API documentation. */
export function GettingStartedCard() {
  const docs = usePublicConfig().docsUrl.replace(/\/+$/, '');
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Getting Started
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          Build an app for smart glasses with the TypeScript SDK, register it here, and share it
          with testers before you publish it.
        </Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          <Link href={`${docs}/quickstart`} {...externalLinkProps}>
            Quick Start Guide
            <NewTabHint />
          </Link>
          <Link href={docs} {...externalLinkProps}>
            API Documentation
            <NewTabHint />
          </Link>
        </Stack>
      </CardContent>
    </Card>
  );
}

/** The apps table's place while it loads. */
export function LoadingApps() {
  return (
    <Stack sx={{ alignItems: 'center', py: 6 }} role="status" aria-live="polite">
      <Typography>Loading Apps...</Typography>
    </Stack>
  );
}

/**
 * The dashboard as it shows while the organizations load (the layout's outline of this route, also built
 * ahead of time into the signed-in shell): what it shows for everyone is there at once, so that the page's
 * largest text paints with the shell instead of after the organizations' answer.
 */
export function DashboardOutline() {
  return (
    <Stack spacing={3} aria-busy="true">
      <DashboardHeading />
      <GettingStartedCard />
      <LoadingApps />
    </Stack>
  );
}
