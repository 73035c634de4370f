import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useCallback, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';

import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useAuthClient } from '../auth';
import { placeOf, safeNext } from './next';
import { PasskeysSection } from './PasskeysSection';
import { PasswordSection } from './PasswordSection';
import { RecoveryCodesSection } from './RecoveryCodesSection';
import { SessionsSection } from './SessionsSection';
import { Authenticators } from './AuthenticatorsSection';
import { ConfirmItsYouNotice, NextStepNotice } from './SecurityNotices';

/**
 * Account Security (PRODUCT.md §1a): the password, the account's authenticator apps (add one with its QR code or its
 * secret typed, confirm it with a code; remove one), its recovery codes and its sessions. Served by the identity service's MFA API through the
 * auth client, so it works the same with a hosted Supabase.
 */
export function AccountSecurityPage() {
  useDocumentTitle('Account Security');
  const client = useAuthClient();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const [added, setAdded] = useState(false);
  const onAdded = useCallback(() => {
    setAdded(true);
  }, []);
  // The way on, also next to the section's own "set up" message (on a phone the top of the page is far).
  const nextStep = next ? (
    <div>
      <Button component={RouterLink} to={next} variant="contained">
        Continue to {placeOf(next)}
      </Button>
    </div>
  ) : null;
  return (
    <Stack spacing={3} sx={{ maxWidth: 720 }}>
      <Typography variant="h4" component="h1">
        Account Security
      </Typography>
      <ConfirmItsYouNotice />
      {next && <NextStepNotice next={next} added={added} />}
      {client ? (
        <>
          <PasswordSection client={client} />
          <Authenticators client={client} onAdded={onAdded} nextStep={nextStep} />
          <RecoveryCodesSection client={client} />
          <SessionsSection client={client} />
          <PasskeysSection client={client} onAdded={onAdded} nextStep={nextStep} />
        </>
      ) : (
        <Skeleton variant="rounded" height={320} aria-label="Loading your account security" />
      )}
    </Stack>
  );
}
