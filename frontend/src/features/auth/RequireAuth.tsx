import { Navigate, Outlet, useLocation } from 'react-router';

import { useAppSelector } from '../../app/store';
import { PageSpinner } from '../../components/PageSpinner';
import { paths } from '../../config/paths';
import { selectAuth } from '../../session/authSlice';

/** Where a signed-out visitor was going, so that sign-in can take them there. */
export interface FromState {
  from?: string;
}

/**
 * Guards the authenticated routes (spec §2): a spinner while the session loads, the sign-in screen for
 * visitors without one, and for a session that must first choose a new password (a recovery link, or a
 * first proof of the address that removed a password someone else had set); the challenge step for a
 * session the product API refused for want of a second factor (Account Security excepted).
 */
export function RequireAuth() {
  const { status, recovery, mfaRequired } = useAppSelector(selectAuth);
  const location = useLocation();
  if (status === 'loading') return <PageSpinner label="Checking your session" />;
  if (status === 'signedOut' || recovery) {
    const from = `${location.pathname}${location.search}`;
    return <Navigate to={paths.signIn()} replace state={{ from } satisfies FromState} />;
  }
  // Account Security stays open: an account that must confirm it's them may first have to add the factor
  // (and it says there how to go on).
  if (
    mfaRequired &&
    location.pathname !== paths.mfaChallenge() &&
    location.pathname !== paths.accountSecurity
  ) {
    return <Navigate to={paths.mfaChallenge(`${location.pathname}${location.search}`)} replace />;
  }
  return <Outlet />;
}
