import Alert from '@mui/material/Alert';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import FormControlLabel from '@mui/material/FormControlLabel';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';

import { errorMessage, isApiErrorBody, isFetchBaseQueryError } from '../../api/errors';
import { paths } from '../../config/paths';
import { useSetTwoFactorRequirementMutation } from './api';
import type { Organization } from './types';

/** The refusal of turning the requirement on from a session without a second factor. */
const OWN_MFA_REQUIRED = 'OWN_MFA_REQUIRED';

function codeOf(error: unknown): string | undefined {
  return isFetchBaseQueryError(error) && isApiErrorBody(error.data) ? error.data.code : undefined;
}

/**
 * Organization Settings, admins only: require a second factor of every member (PRODUCT.md §1a). Turning
 * it on needs the admin's own session to have passed one: the server refuses otherwise, and the card
 * says where to add one.
 */
export function OrgTwoFactorCard({ org }: { org: Organization }) {
  const [setRequirement, { isLoading: saving }] = useSetTwoFactorRequirementMutation();
  const [failure, setFailure] = useState<{ text: string; ownFactor: boolean } | null>(null);
  const [saved, setSaved] = useState<boolean | null>(null);
  const required = org.requireTwoFactor;

  const change = async (next: boolean) => {
    setFailure(null);
    setSaved(null);
    try {
      await setRequirement({ orgId: org.id, required: next }).unwrap();
      setSaved(next);
    } catch (error) {
      setFailure({
        text: errorMessage(error, 'The setting could not be changed. Please try again.'),
        ownFactor: codeOf(error) === OWN_MFA_REQUIRED,
      });
    }
  };

  return (
    <Card variant="outlined" component="section" aria-labelledby="org-two-factor-title">
      <CardContent>
        <Stack spacing={1.5}>
          <Typography id="org-two-factor-title" variant="h6" component="h2">
            Security
          </Typography>
          <FormControlLabel
            control={
              <Switch
                // What the server stored as soon as it answers (the organization list follows).
                checked={saved ?? required}
                disabled={saving}
                onChange={(event) => void change(event.target.checked)}
                slotProps={{ input: { 'aria-describedby': 'org-two-factor-help' } }}
              />
            }
            label="Require two-factor authentication"
          />
          <Typography id="org-two-factor-help" variant="body2" color="text.secondary">
            Members without an authenticator app, or signed in without it, cannot work in {org.name}{' '}
            until they add one on Account Security. They can still leave it. Turning this on needs
            your own session to have used an authenticator app.
          </Typography>
          {saved !== null && (
            <Alert severity="success" role="status">
              {saved
                ? 'Two-factor authentication is now required of every member.'
                : 'Two-factor authentication is no longer required.'}
            </Alert>
          )}
          {failure && (
            <Alert severity="error" role="alert">
              {failure.text}
              {failure.ownFactor && (
                <>
                  {' '}
                  <Link
                    component={RouterLink}
                    to={paths.accountSecurity}
                    color="inherit"
                    sx={{ fontWeight: 600 }}
                  >
                    Go to Account Security
                  </Link>
                </>
              )}
            </Alert>
          )}
        </Stack>
      </CardContent>
    </Card>
  );
}
