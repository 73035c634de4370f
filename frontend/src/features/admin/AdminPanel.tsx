import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';

import { DialogLoading } from '../../components/DialogLoading';
import { Loading } from '../../components/Loading';
import { useGetAdminAppQuery } from './api';
import type { PlatformRole } from './types';
import { DashboardTab } from './DashboardTab';
import { SubmissionsTab } from './SubmissionsTab';

// The panel opens on the dashboard: the other tabs (with their search, filters and selects) and the
// review dialog load when they are shown.
const AppStatusTab = lazy(async () => ({ default: (await import('./AppStatusTab')).AppStatusTab }));
const AppDetailTab = lazy(async () => ({ default: (await import('./AppStatusTab')).AppDetailTab }));
const PlatformUsersTab = lazy(async () => ({
  default: (await import('./PlatformUsersTab')).PlatformUsersTab,
}));
const AuditLogTab = lazy(async () => ({ default: (await import('./AuditLogTab')).AuditLogTab }));
const ReviewDialog = lazy(async () => ({ default: (await import('./ReviewDialog')).ReviewDialog }));

/** The tabs, as the `tab` query parameter names them. */
export type TabKey = 'dashboard' | 'submissions' | 'status' | 'users' | 'audit' | 'app';

const tabId = (key: TabKey) => `admin-tab-${key}`;
const panelId = (key: TabKey) => `admin-panel-${key}`;

function TabPanel({ tab, children }: { tab: TabKey; children: ReactNode }) {
  return (
    <Box role="tabpanel" id={panelId(tab)} aria-labelledby={tabId(tab)} sx={{ pt: 3 }}>
      {children}
    </Box>
  );
}

/**
 * The Admin Panel (spec §2): Dashboard, App Submissions, App Status and, for platform admins only,
 * Platform Users and the platform's Audit Log; plus a closable tab for one app, opened from App Status. The open tab lives in the
 * address (`?tab=…&app=…`) so that it survives a reload and the back button.
 */
export function AdminPanel({ role }: { role: PlatformRole }) {
  const [params, setParams] = useSearchParams();
  const [reviewing, setReviewing] = useState<string | null>(null);
  const isAdmin = role === 'admin';
  const openApp = params.get('app');
  // The app tab is named after the app (its package name until the app has loaded).
  const { data: openAppData } = useGetAdminAppQuery(openApp ?? '', { skip: !openApp });
  const openAppName = openAppData?.packageName === openApp ? openAppData.name : openApp;

  const requested = params.get('tab') as TabKey | null;
  const known: TabKey[] = ['dashboard', 'submissions', 'status'];
  if (isAdmin) known.push('users', 'audit');
  if (openApp) known.push('app');
  const tab: TabKey = requested && known.includes(requested) ? requested : 'dashboard';

  const show = (key: TabKey, app?: string | null) => {
    const next = new URLSearchParams();
    if (key !== 'dashboard') next.set('tab', key);
    const keep = app === undefined ? openApp : app;
    if (keep) next.set('app', keep);
    setParams(next);
  };
  const closeReview = () => {
    setReviewing(null);
  };
  const tabProps = (key: TabKey) => ({ value: key, id: tabId(key), 'aria-controls': panelId(key) });

  return (
    <Stack spacing={2}>
      <div>
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          Admin Panel
        </Typography>
        <Typography color="text.secondary">
          {isAdmin
            ? 'Review submitted apps and manage who may review them.'
            : 'Review submitted apps.'}
        </Typography>
      </div>
      <Stack
        direction="row"
        sx={{ alignItems: 'center', borderBottom: 1, borderColor: 'divider', minWidth: 0 }}
      >
        <Tabs
          value={tab}
          onChange={(_event, key: TabKey) => {
            show(key);
          }}
          aria-label="Admin Panel sections"
          variant="scrollable"
          scrollButtons="auto"
          allowScrollButtonsMobile
          sx={{ minWidth: 0 }}
        >
          <Tab label="Dashboard" {...tabProps('dashboard')} />
          <Tab label="App Submissions" {...tabProps('submissions')} />
          <Tab label="App Status" {...tabProps('status')} />
          {isAdmin && <Tab label="Platform Users" {...tabProps('users')} />}
          {isAdmin && <Tab label="Audit Log" {...tabProps('audit')} />}
          {openApp && <Tab label={openAppName} {...tabProps('app')} />}
        </Tabs>
        {openApp && (
          <Tooltip title={`Close ${openAppName ?? ''}`}>
            <IconButton
              size="small"
              aria-label={`Close the ${openAppName ?? ''} tab`}
              onClick={() => {
                show('status', null);
              }}
            >
              <CloseIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
      </Stack>
      <TabPanel tab={tab}>
        <Suspense fallback={<Loading label="Loading..." />}>
          {tab === 'dashboard' && <DashboardTab onReview={setReviewing} />}
          {tab === 'submissions' && <SubmissionsTab onReview={setReviewing} />}
          {tab === 'status' && (
            <AppStatusTab
              onOpen={(pkg) => {
                show('app', pkg);
              }}
            />
          )}
          {tab === 'users' && <PlatformUsersTab />}
          {tab === 'audit' && <AuditLogTab />}
          {tab === 'app' && openApp && <AppDetailTab packageName={openApp} />}
        </Suspense>
      </TabPanel>
      {reviewing !== null && (
        <Suspense fallback={<DialogLoading onClose={closeReview} />}>
          {/* Keyed: each app opens with empty notes and no earlier message. */}
          <ReviewDialog key={reviewing} packageName={reviewing} onClose={closeReview} />
        </Suspense>
      )}
    </Stack>
  );
}
