import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import Snackbar from '@mui/material/Snackbar';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import MenuIcon from '@mui/icons-material/Menu';
import { useEffect, useRef, useState } from 'react';
import { Outlet, Link as RouterLink, useLocation, useMatch, useNavigate } from 'react-router';

import { useAppDispatch, useAppSelector } from '../../app/store';
import { Logo } from '../../components/Logo';
import { PageSkeleton } from '../../components/PageSkeleton';
import { DashboardOutline } from '../dashboard';
import { SkipLink } from '../../components/SkipLink';
import { NewTabHint } from '../../components/NewTabHint';
import { externalLinkProps } from '../../components/externalLinkProps';
import { visuallyHidden } from '../../components/visuallyHidden';
import { paths, routePatterns } from '../../config/paths';
import { ColorModeToggle } from '../../theme/ColorModeToggle';
import { useAuthClient } from '../auth';
import { noticeShown } from '../../session/authSlice';
import { usePublicConfig } from '../publicConfig';
import {
  OrgTwoFactorGate,
  PersonalOrgNotice,
  ProfileIncompleteBanner,
  useCurrentOrg,
  useProfileBannerReady,
} from '../orgs';
import { TokensAfterResetDialog } from '../tokens';
import { AccountMenu } from './AccountMenu';
import { showsProfileBanner } from './profileBannerPages';
import { SidebarNav } from './SidebarNav';

/** The top bar is 16 units (64 px) high and the sidebar 64 units (256 px) wide (spec §2). */
export const TOP_BAR_HEIGHT = 64;
export const SIDEBAR_WIDTH = 256;

/** The layout of every authenticated page: fixed top bar, sidebar (a drawer on small screens), content. */
export function AppLayout() {
  const config = usePublicConfig();
  // Only the notice: the layout does not render again when the session is confirmed or refreshed.
  const notice = useAppSelector((state) => state.auth.notice);
  const noticeSeq = useAppSelector((state) => state.auth.noticeSeq ?? 0);
  const dispatch = useAppDispatch();
  const client = useAuthClient();
  const navigate = useNavigate();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const { isLoading: orgsLoading } = useCurrentOrg();
  // The banner of an incomplete organization profile shows where publishing happens only.
  const { pathname } = useLocation();
  const profileBanner = showsProfileBanner(pathname);
  // The notice above the page takes its final height with the page (a member's banner names the admin to
  // ask once the member list has come): nothing below it moves when that arrives.
  const bannerReady = useProfileBannerReady(profileBanner);
  // The page waits for the organizations' first answer only. A list that failed is asked for again by
  // every component that subscribes to it afterwards (RTK Query refetches a failed query for a new
  // subscriber): if the page went back to waiting meanwhile, its components would unmount, subscribe
  // again when it came back and ask again, without end.
  const [orgsAnswered, setOrgsAnswered] = useState(false);
  const dashboard = useMatch(routePatterns.dashboard) !== null;
  if (!orgsLoading && bannerReady && !orgsAnswered) setOrgsAnswered(true);

  // A page that started from a stored core token shows before the identity client has loaded: a sign-out
  // asked for meanwhile waits for it, so that the session really ends (locally and at the server). Only this
  // session ends: signing every session out is a recovery step on Account Security, and it also revokes
  // the access tokens those sessions made.
  const signOutStarted = useRef(false);
  useEffect(() => {
    if (!signingOut || !client || signOutStarted.current) return;
    signOutStarted.current = true;
    void client.signOut({ scope: 'local' }).finally(() => {
      signOutStarted.current = false;
      setSigningOut(false);
      void navigate(paths.signIn(), { replace: true });
    });
  }, [signingOut, client, navigate]);
  const signOut = () => {
    setSigningOut(true);
  };

  const closeDrawer = () => {
    setDrawerOpen(false);
  };

  return (
    <Box sx={{ display: 'flex', minHeight: '100dvh' }}>
      <SkipLink />
      <AppBar
        position="fixed"
        color="inherit"
        elevation={0}
        sx={{
          height: TOP_BAR_HEIGHT,
          justifyContent: 'center',
          borderBottom: 1,
          borderColor: 'divider',
          bgcolor: 'background.paper',
          zIndex: (theme) => theme.zIndex.drawer + 1,
        }}
      >
        <Toolbar sx={{ gap: 1 }}>
          <IconButton
            edge="start"
            aria-label="Open navigation"
            aria-controls="sidebar-drawer"
            aria-expanded={drawerOpen}
            onClick={() => {
              setDrawerOpen(true);
            }}
            sx={{ display: { md: 'none' } }}
          >
            <MenuIcon />
          </IconButton>
          <Link
            component={RouterLink}
            to={paths.dashboard}
            underline="none"
            color="inherit"
            sx={{ display: 'flex', alignItems: 'center', gap: 1.25, mr: 'auto', borderRadius: 1 }}
          >
            <Logo size={32} />
            <Typography
              component="span"
              // On a phone the logo alone stands for the name, so that the bar keeps one line.
              sx={{
                fontWeight: 700,
                fontSize: '1.125rem',
                whiteSpace: 'nowrap',
                '@media (max-width: 479.95px)': visuallyHidden,
              }}
            >
              Developer Portal
            </Typography>
          </Link>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <Button
              href={config.docsUrl}
              {...externalLinkProps}
              color="inherit"
              sx={{ display: { xs: 'none', sm: 'inline-flex' } }}
            >
              Documentation
              <NewTabHint />
            </Button>
            <ColorModeToggle />
            {/* Account Security, Access Tokens and Sign Out, at every width (issue 48, item 10). */}
            <AccountMenu signingOut={signingOut} onSignOut={signOut} />
          </Stack>
        </Toolbar>
      </AppBar>
      <Drawer
        id="sidebar-drawer"
        variant="temporary"
        open={drawerOpen}
        onClose={closeDrawer}
        // The open drawer is a dialog: it is named for screen readers.
        slotProps={{ paper: { 'aria-label': 'Navigation' } }}
        sx={{ display: { md: 'none' }, '& .MuiDrawer-paper': { width: SIDEBAR_WIDTH } }}
      >
        <SidebarNav onNavigate={closeDrawer} />
      </Drawer>
      <Drawer
        variant="permanent"
        sx={{
          display: { xs: 'none', md: 'block' },
          width: SIDEBAR_WIDTH,
          flexShrink: 0,
          // The sidebar's column runs the page's full height (a flex item of the row, stretched), with the
          // sidebar's own background and edge: on a page longer than the window its colour goes on under the
          // fixed sidebar instead of stopping at the window's height (issue 48, item 15).
          alignSelf: 'stretch',
          bgcolor: 'background.paper',
          borderRight: 1,
          borderColor: 'divider',
          '& .MuiDrawer-paper': {
            width: SIDEBAR_WIDTH,
            top: TOP_BAR_HEIGHT,
            height: `calc(100% - ${TOP_BAR_HEIGHT}px)`,
          },
        }}
        open
      >
        <SidebarNav />
      </Drawer>
      <Box
        component="main"
        id="main"
        tabIndex={-1}
        sx={{
          flexGrow: 1,
          minWidth: 0,
          pt: `${TOP_BAR_HEIGHT}px`,
          bgcolor: 'background.default',
          outline: 'none',
        }}
      >
        <Box sx={{ p: { xs: 2, sm: 3, md: 4 }, maxWidth: 1200, mx: 'auto' }}>
          {!orgsAnswered ? (
            // The notices above the page depend on the organizations: the page waits for them too, so
            // that it does not jump down when a notice appears.
            // The dashboard shows its outline (its largest text included) rather than grey boxes: it
            // is built ahead of time into the signed-in shell, so that the page paints at once.
            dashboard ? (
              <DashboardOutline />
            ) : (
              <PageSkeleton label="Loading your organizations" />
            )
          ) : (
            <>
              <PersonalOrgNotice />
              <OrgTwoFactorGate>
                {profileBanner && <ProfileIncompleteBanner />}
                <Outlet />
              </OrgTwoFactorGate>
            </>
          )}
        </Box>
      </Box>
      {/* After a password reset: the access tokens that still work, before the user goes on. */}
      <TokensAfterResetDialog />
      <Snackbar
        // A new notice is a new snackbar: its own six seconds, not what is left of the previous one's.
        key={noticeSeq}
        open={notice !== null}
        autoHideDuration={6000}
        // A click elsewhere does not close it: MUI counts any click after it opened as a click away, and a
        // notice shown as the user clicks (a redirect after a button) closed within ~100 ms. It closes by its
        // button, Escape or its time.
        onClose={(_event, reason) => {
          if (reason !== 'clickaway') dispatch(noticeShown(null));
        }}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      >
        <Alert
          severity={notice?.severity ?? 'info'}
          // The standard colours keep text contrast at 4.5:1 or more for every severity (filled info and
          // warning do not).
          variant="standard"
          onClose={() => dispatch(noticeShown(null))}
          sx={{ boxShadow: 6 }}
        >
          {notice?.text}
        </Alert>
      </Snackbar>
    </Box>
  );
}
