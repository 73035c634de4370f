import { useEffect, useRef } from 'react';

import { useAppDispatch } from '../../app/store';
import { noticeQueued } from '../../session/authSlice';
import { useCurrentOrg } from './useCurrentOrg';

/**
 * Says once that a new user's personal organization was just made (spec §8), after any notice on screen
 * (e.g. that the invitation the user followed has expired). Renders nothing.
 */
export function PersonalOrgNotice() {
  const dispatch = useAppDispatch();
  const { current, personalOrgCreated } = useCurrentOrg();
  const said = useRef(false);
  useEffect(() => {
    if (!personalOrgCreated || !current || said.current) return;
    said.current = true;
    dispatch(
      noticeQueued({
        severity: 'info',
        text: `A personal organization, ${current.name}, has been created for you.`,
      }),
    );
  }, [personalOrgCreated, current, dispatch]);
  return null;
}
