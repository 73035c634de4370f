import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import KeyIcon from '@mui/icons-material/Key';
import { useState } from 'react';

import { errorMessage } from '../../api/errors';
import type { AccessToken } from '../../api/types';
import { QueryContent } from '../../components/QueryContent';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useCurrentOrg } from '../orgs';
import {
  useListTokensQuery,
  useRevokeAllAccessTokensMutation,
  useRevokeTokenMutation,
} from './api';
import { CreateTokenDialog } from './CreateTokenDialog';
import { readDraft } from './draft';
import { revokedAllText } from './format';
import { RevokeAllTokensDialog } from './RevokeAllTokensDialog';
import { RevokeTokenDialog } from './RevokeTokenDialog';
import { TokenList } from './TokenList';

/** What an access token is for: the page's introduction and its empty state. */
const WHAT_FOR =
  'An access token lets a script, a CI job or the devportal command-line tool work with your apps as you, without your password. Each one acts in the organizations and with the scopes you choose, and expires.';

/**
 * Access Tokens (issue 37): the user's personal access tokens, newest first, revoked and expired ones
 * included; create one (shown once), revoke one. A draft kept while the user confirmed it's them opens the
 * create dialog again.
 */
export function AccessTokensPage() {
  useDocumentTitle('Access Tokens');
  const tokensQuery = useListTokensQuery();
  const tokens = tokensQuery.data;
  const { orgs, current } = useCurrentOrg();
  const [revoke, { isLoading: revoking }] = useRevokeTokenMutation();
  const [draft] = useState(readDraft);
  const [creating, setCreating] = useState(draft !== null);
  const [usedDraft, setUsedDraft] = useState(false);
  const [revokeAll, { isLoading: revokingAll }] = useRevokeAllAccessTokensMutation();
  const [pending, setPending] = useState<AccessToken | null>(null);
  const [confirmingAll, setConfirmingAll] = useState(false);
  const active = tokens?.filter((token) => token.status === 'active').length ?? 0;
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const orgName = (orgId: string | null | undefined) => {
    if (!orgId) return 'All your organizations';
    return orgs.find((org) => org.id === orgId)?.name ?? 'An organization you left';
  };

  const startCreating = () => {
    setNotice(null);
    setCreating(true);
  };

  const confirmRevoke = async () => {
    if (!pending) return;
    setNotice(null);
    setActionError(null);
    const name = pending.name;
    const result = await revoke(pending.id);
    setPending(null);
    if ('error' in result) {
      setActionError(errorMessage(result.error, 'The token could not be revoked.'));
      return;
    }
    setNotice(`“${name}” was revoked: it no longer works.`);
  };

  const confirmRevokeAll = async () => {
    setNotice(null);
    setActionError(null);
    const result = await revokeAll();
    setConfirmingAll(false);
    if ('error' in result) {
      setActionError(errorMessage(result.error, 'Your access tokens could not be revoked.'));
      return;
    }
    setNotice(revokedAllText(result.data));
  };

  const createButton = (
    <Button variant="contained" startIcon={<AddIcon />} onClick={startCreating}>
      Create token
    </Button>
  );

  const body = (
    <QueryContent
      query={tokensQuery}
      loadingLabel="Loading your access tokens"
      skeletonHeight={160}
      failure="Your access tokens could not be loaded."
    >
      {(list) =>
        list.length === 0 ? (
          <Card variant="outlined">
            <CardContent>
              <Stack spacing={1.5} sx={{ alignItems: 'flex-start', py: 2 }}>
                <KeyIcon color="action" fontSize="large" aria-hidden />
                <Typography variant="h6" component="h2">
                  No access tokens yet
                </Typography>
                <Typography color="text.secondary" sx={{ maxWidth: 640 }}>
                  {WHAT_FOR}
                </Typography>
                {createButton}
              </Stack>
            </CardContent>
          </Card>
        ) : (
          <TokenList
            kind="own"
            tokens={list}
            label="Your access tokens"
            orgName={orgName}
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
    <Stack spacing={3}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ justifyContent: 'space-between', alignItems: { xs: 'flex-start', sm: 'center' } }}
      >
        <div>
          <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
            Access Tokens
          </Typography>
          {tokens && tokens.length > 0 && (
            <Typography color="text.secondary" sx={{ maxWidth: 720, mt: 0.5 }}>
              {WHAT_FOR}
            </Typography>
          )}
        </div>
        {tokens && tokens.length > 0 && (
          <Stack direction="row" spacing={1} sx={{ flexShrink: 0, flexWrap: 'wrap', rowGap: 1 }}>
            {active > 0 && (
              <Button
                variant="outlined"
                color="error"
                onClick={() => {
                  setNotice(null);
                  setActionError(null);
                  setConfirmingAll(true);
                }}
              >
                Revoke all
              </Button>
            )}
            {createButton}
          </Stack>
        )}
      </Stack>
      {notice && <Alert severity="success">{notice}</Alert>}
      {actionError && (
        <Alert severity="error" role="alert">
          {actionError}
        </Alert>
      )}
      {body}
      <CreateTokenDialog
        open={creating}
        onClose={() => {
          setCreating(false);
          setUsedDraft(true);
        }}
        orgs={orgs.map(({ id, name }) => ({ id, name }))}
        defaultOrgId={current?.id ?? null}
        draft={usedDraft ? null : draft}
      />
      <RevokeAllTokensDialog
        open={confirmingAll}
        active={active}
        busy={revokingAll}
        onConfirm={() => void confirmRevokeAll()}
        onClose={() => {
          setConfirmingAll(false);
        }}
      />
      <RevokeTokenDialog
        token={pending}
        busy={revoking}
        onConfirm={() => void confirmRevoke()}
        onClose={() => {
          setPending(null);
        }}
      />
    </Stack>
  );
}
