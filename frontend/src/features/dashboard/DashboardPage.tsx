import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router';

import { useAppSelector } from '../../app/store';
import { NewTabHint } from '../../components/NewTabHint';
import { externalLinkProps } from '../../components/externalLinkProps';
import { paths } from '../../config/paths';
import { selectAuthUser } from '../../session/authSlice';
import { useGetAdminCheckQuery } from '../auth';
import { usePublicConfig } from '../publicConfig';
import { useDocumentTitle } from '../../components/useDocumentTitle';

// The table and its dialogs load after the page itself, so that the dashboard shows at once: their code is
// asked for once the page has painted (React would otherwise start fetching it while it renders the page,
// and the page's first paint would share the network and the main thread with it).
const AppsTable = lazy(async () => ({
  default: (await import('../apps')).AppsTable,
}));

/** Runs `run` after the browser's next paint; answers a function that cancels it. */
function afterNextPaint(run: () => void): () => void {
  let timer: number | undefined;
  const frame = window.requestAnimationFrame(() => {
    timer = window.setTimeout(run, 0);
  });
  return () => {
    window.cancelAnimationFrame(frame);
    window.clearTimeout(timer);
  };
}

function LoadingApps() {
  return (
    <Stack sx={{ alignItems: 'center', py: 6 }} role="status" aria-live="polite">
      <Typography>Loading Apps...</Typography>
    </Stack>
  );
}

/** `/dashboard` (spec §2): title, Create App, the Getting Started card and the first three apps. */
export function DashboardPage() {
  useDocumentTitle('Dashboard');
  const config = usePublicConfig();
  const user = useAppSelector(selectAuthUser);
  const docs = config.docsUrl.replace(/\/+$/, '');
  const { data: adminCheck } = useGetAdminCheckQuery();
  const [painted, setPainted] = useState(false);
  useEffect(
    () =>
      afterNextPaint(() => {
        setPainted(true);
      }),
    [],
  );

  return (
    <Stack spacing={3}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
      >
        <div>
          <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
            Developer Dashboard
          </Typography>
          {user && <Typography color="text.secondary">Signed in as {user.email}</Typography>}
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
      {adminCheck?.roleAwaitsProof && (
        <Alert severity="info">
          <AlertTitle>A platform admin role waits for your address</AlertTitle>
          Your address is listed as a platform admin, but the role goes to an account only once it
          proves it owns the address: open the confirmation link or enter the code e-mailed to it,
          or sign in with a provider that verifies it. Without e-mail on this server, the operator
          opens the one-time setup link the server writes to its log at start (while the platform
          has no admin) when signed in as you, or runs <code>app-server admin grant EMAIL</code>.
        </Alert>
      )}
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
      <Suspense fallback={<LoadingApps />}>
        {painted ? <AppsTable limit={3} viewAll /> : <LoadingApps />}
      </Suspense>
    </Stack>
  );
}
