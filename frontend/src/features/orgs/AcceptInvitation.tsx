import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';

import { useAppDispatch } from '../../app/store';
import { paths } from '../../config/paths';
import { noticeShown } from '../../session/authSlice';
import { acceptanceFailure } from './acceptance';
import { useAcceptInviteMutation } from './api';
import { orgSelected } from '../../session/orgSlice';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/**
 * A signed-in user arriving with an invitation token (`/signin?token=` or `/invite/accept?token=`): the
 * invitation is accepted once, then the user goes to the organization's settings with a welcome, or to
 * where spec §8 says for each failure.
 */
export function AcceptInvitation({ token }: { token: string }) {
  useDocumentTitle('Accept invitation');
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [accept] = useAcceptInviteMutation();
  const started = useRef<string | null>(null);

  useEffect(() => {
    if (started.current === token) return;
    started.current = token;
    accept(token)
      .unwrap()
      .then((org) => {
        dispatch(orgSelected(org.id));
        void navigate(paths.orgSettings({ welcome: true, orgName: org.name, orgId: org.id }), {
          replace: true,
        });
      })
      .catch((error: unknown) => {
        const { to, notice } = acceptanceFailure(error);
        dispatch(noticeShown(notice));
        void navigate(to, { replace: true });
      });
  }, [token, accept, dispatch, navigate]);

  return (
    <Box
      component="main"
      id="main"
      sx={{ minHeight: '100dvh', display: 'grid', placeItems: 'center', p: 2 }}
    >
      <Stack spacing={2} sx={{ alignItems: 'center' }} role="status" aria-live="polite">
        <CircularProgress aria-hidden />
        <Typography>Accepting the invitation...</Typography>
      </Stack>
    </Box>
  );
}
