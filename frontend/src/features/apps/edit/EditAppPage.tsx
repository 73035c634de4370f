import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useEffect, useState, type ReactNode } from 'react';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';

import { isApiErrorBody, isFetchBaseQueryError } from '../../../api/errors';
import { useAppDispatch } from '../../../app/store';
import { paths } from '../../../config/paths';
import { noticeShown } from '../../../session/authSlice';
import { useCurrentOrg } from '../../orgs';
import { errorStatus, useGetAppQuery } from '../api';
import { LOAD_FAILED, MOVE_REDIRECT_MS, MOVED, notFoundMessage } from './editApp';
import { EditAppForm } from './EditAppForm';
import { useDocumentTitle } from '../../../components/useDocumentTitle';

/** How long the not-found note shows before going back to the list. */
const NOT_FOUND_REDIRECT_MS = 1500;

/** Whether a failed load means the app is not in this organization. */
function isNotFound(error: unknown): boolean {
  if (errorStatus(error) === 404) return true;
  return (
    isFetchBaseQueryError(error) &&
    isApiErrorBody(error.data) &&
    /not found/iu.test(error.data.error)
  );
}

/** `/apps/{packageName}/edit` (spec §2 Edit App). */
export function EditAppPage() {
  const { packageName = '' } = useParams();
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const { current, orgs, isLoading: orgLoading, isError: orgError } = useCurrentOrg();
  const orgId = current?.id ?? '';
  // Once moved, the app is no longer in this organization: it is not read again from here.
  const [moved, setMoved] = useState(false);
  const query = useGetAppQuery({ orgId, packageName }, { skip: !orgId || !packageName || moved });
  const notFound = !moved && query.isError && isNotFound(query.error);
  useDocumentTitle(query.data ? `${query.data.name} · Edit App` : 'Edit App');

  useEffect(() => {
    if (!moved) return undefined;
    const timer = setTimeout(() => {
      void navigate(paths.apps);
    }, MOVE_REDIRECT_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [moved, navigate]);

  useEffect(() => {
    if (!notFound) return undefined;
    const timer = setTimeout(() => {
      dispatch(noticeShown({ severity: 'info', text: notFoundMessage(packageName) }));
      void navigate(paths.apps, { replace: true });
    }, NOT_FOUND_REDIRECT_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [notFound, packageName, navigate, dispatch]);

  let body: ReactNode;
  if (moved) {
    body = (
      <Alert severity="success" role="status">
        {MOVED}
      </Alert>
    );
  } else if (orgLoading || query.isLoading) {
    body = (
      <Stack sx={{ alignItems: 'center', py: 8 }} role="status" aria-live="polite">
        <CircularProgress aria-hidden />
        <Typography sx={{ mt: 2 }}>Loading app...</Typography>
      </Stack>
    );
  } else if (!orgError && !current) {
    body = (
      <Alert severity="info">
        You don&apos;t have an active organization. Please create or join an organization first.
      </Alert>
    );
  } else if (notFound) {
    body = (
      <Alert severity="warning" role="alert">
        {notFoundMessage(packageName)}
      </Alert>
    );
  } else if (orgError || query.isError || !query.data) {
    body = (
      <Alert
        severity="error"
        role="alert"
        action={
          <Button color="inherit" size="small" onClick={() => void query.refetch()}>
            Try Again
          </Button>
        }
      >
        {LOAD_FAILED}
      </Alert>
    );
  } else {
    // A fresh form for each app (and after a move or reload of another app).
    body = (
      <EditAppForm
        key={query.data.packageName}
        app={query.data}
        orgId={orgId}
        orgs={orgs}
        onMoved={() => {
          setMoved(true);
        }}
      />
    );
  }

  return (
    <Stack spacing={3}>
      <Box>
        <Link
          component={RouterLink}
          to={paths.apps}
          sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
        >
          <ArrowBackIcon fontSize="small" aria-hidden />
          Back to Apps
        </Link>
      </Box>
      {/* One way back (issue 48 item 11): the link above, as on Create App. */}
      <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
        Edit App
      </Typography>
      {body}
    </Stack>
  );
}

export default EditAppPage;
