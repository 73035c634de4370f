import Alert from '@mui/material/Alert';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

import { errorMessage } from '../../api/errors';
import type { AccessToken } from '../../api/types';
import { QueryContent } from '../../components/QueryContent';
import { useListOrgTokensQuery, useRevokeOrgTokenMutation } from './api';
import { RevokeTokenDialog } from './RevokeTokenDialog';
import { TokenList } from './TokenList';

/**
 * Organization Settings, admins only: the personal access tokens that act in the organization (bound to
 * it, or to every organization of a member), with their owners; an admin revokes any of them.
 */
export function OrgTokensSection({ org }: { org: { id: string; name: string } }) {
  const tokensQuery = useListOrgTokensQuery(org.id);
  const [revoke, { isLoading: revoking }] = useRevokeOrgTokenMutation();
  const [pending, setPending] = useState<AccessToken | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const confirmRevoke = async () => {
    if (!pending) return;
    setNotice(null);
    setActionError(null);
    const { name, ownerEmail } = pending;
    const result = await revoke({ orgId: org.id, id: pending.id });
    setPending(null);
    if ('error' in result) {
      setActionError(errorMessage(result.error, 'The token could not be revoked.'));
      return;
    }
    setNotice(`“${name}”${ownerEmail ? ` of ${ownerEmail}` : ''} was revoked: it no longer works.`);
  };

  const body = (
    <QueryContent
      query={tokensQuery}
      loadingLabel="Loading the organization's tokens"
      skeletonHeight={96}
      failure="The tokens could not be loaded."
    >
      {(tokens) =>
        tokens.length === 0 ? (
          <Typography>No access token acts in {org.name}.</Typography>
        ) : (
          <TokenList
            kind="org"
            tokens={tokens}
            label={`Access tokens acting in ${org.name}`}
            onRevoke={(token) => {
              setActionError(null);
              setPending(token);
            }}
          />
        )
      }
    </QueryContent>
  );

  return (
    <Card variant="outlined" component="section" aria-labelledby="org-tokens-title">
      <CardContent>
        <Stack spacing={1.5}>
          <Typography id="org-tokens-title" variant="h6" component="h2">
            Access tokens acting in this organization
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Members’ personal access tokens made for {org.name}, or for every organization of their
            owner. Revoke one you do not trust: it stops working at once, everywhere.
          </Typography>
          {notice && <Alert severity="success">{notice}</Alert>}
          {actionError && (
            <Alert severity="error" role="alert">
              {actionError}
            </Alert>
          )}
          {body}
        </Stack>
      </CardContent>
      <RevokeTokenDialog
        token={pending}
        owner={pending?.ownerEmail}
        busy={revoking}
        onConfirm={() => void confirmRevoke()}
        onClose={() => {
          setPending(null);
        }}
      />
    </Card>
  );
}
