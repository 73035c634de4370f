import { useEffect, useRef } from 'react';

import { useAppDispatch } from '../../app/store';
import { noticeShown } from '../../session/authSlice';
import { useCurrentOrg } from './useCurrentOrg';

/** Says once that a new user's personal organization was just made (spec §8). Renders nothing. */
export function PersonalOrgNotice() {
  const dispatch = useAppDispatch();
  const { current, personalOrgCreated } = useCurrentOrg();
  const said = useRef(false);
  useEffect(() => {
    if (!personalOrgCreated || !current || said.current) return;
    said.current = true;
    dispatch(
      noticeShown({
        severity: 'info',
        text: `A personal organization, ${current.name}, has been created for you.`,
      }),
    );
  }, [personalOrgCreated, current, dispatch]);
  return null;
}
