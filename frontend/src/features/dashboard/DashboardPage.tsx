import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Stack from '@mui/material/Stack';
import { lazy, startTransition, Suspense, useEffect, useState } from 'react';

import { isMfaRefusal } from '../../api/errors';
import { paths } from '../../config/paths';
import { SecondFactorNeeded } from '../account';
import { useGetAdminCheckQuery } from '../auth';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { DashboardHeading, GettingStartedCard, LoadingApps } from './DashboardParts';

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

/** `/dashboard` (spec §2): title, Create App, the Getting Started card and the first three apps. */
export function DashboardPage() {
  useDocumentTitle('Dashboard');
  const { data: adminCheck, error: adminCheckError } = useGetAdminCheckQuery();
  const [painted, setPainted] = useState(false);
  useEffect(
    () =>
      afterNextPaint(() => {
        // The table renders in short slices, so that the page stays responsive meanwhile.
        startTransition(() => {
          setPainted(true);
        });
      }),
    [],
  );

  return (
    <Stack spacing={3}>
      <DashboardHeading />
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
      {isMfaRefusal(adminCheckError) && (
        <SecondFactorNeeded next={paths.admin} what="the Admin Panel" />
      )}
      <GettingStartedCard />
      <Suspense fallback={<LoadingApps />}>
        {painted ? <AppsTable limit={3} viewAll /> : <LoadingApps />}
      </Suspense>
    </Stack>
  );
}
