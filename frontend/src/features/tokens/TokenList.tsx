import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import type { ReactNode } from 'react';

import type { AccessToken } from '../../api/types';
import { visuallyHidden } from '../../components/visuallyHidden';
import { STATUS_LABELS, expiryText, formatDate, lastUsedText } from './format';

/**
 * Which list: the user's own tokens (with the organization each acts in), or the tokens acting in one
 * organization (with their owners, for its admins).
 */
export type TokenListKind = 'own' | 'org';

interface Props {
  kind: TokenListKind;
  tokens: AccessToken[];
  /** The list's accessible name. */
  label: string;
  /** The organization a token acts in, as the user knows it (own tokens). */
  orgName?: (orgId: string | null | undefined) => string;
  onRevoke: (token: AccessToken) => void;
}

export function StatusChip({ status }: { status: AccessToken['status'] }) {
  return (
    <Chip
      size="small"
      label={STATUS_LABELS[status]}
      color={status === 'active' ? 'success' : status === 'revoked' ? 'error' : 'default'}
      variant="outlined"
    />
  );
}

function Scopes({ token }: { token: AccessToken }) {
  return (
    <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5 }}>
      {token.scopes.map((scope) => (
        <Chip key={scope} label={scope} size="small" sx={{ fontFamily: 'monospace' }} />
      ))}
    </Stack>
  );
}

/** The expiry date, and how long is left (a revoked token's status says all). */
function Expires({ token }: { token: AccessToken }) {
  const text = expiryText(token);
  return (
    <>
      {formatDate(token.expiresAt)}
      {token.status !== 'revoked' && (
        <Typography
          variant="body2"
          component="span"
          color={text === 'expired' ? 'error' : 'text.secondary'}
          sx={{ display: 'block' }}
        >
          {text}
        </Typography>
      )}
    </>
  );
}

function RevokeButton({ token, onRevoke }: { token: AccessToken; onRevoke: Props['onRevoke'] }) {
  if (token.status === 'revoked') return null;
  return (
    <Button
      color="error"
      size="small"
      onClick={() => {
        onRevoke(token);
      }}
      aria-label={`Revoke ${token.name}`}
    >
      Revoke
    </Button>
  );
}

/** The tokens as a table, or as cards on a phone. */
export function TokenList(props: Props) {
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  return phone ? <TokenCards {...props} /> : <TokenTable {...props} />;
}

function TokenTable({ kind, tokens, label, orgName, onRevoke }: Props) {
  const own = kind === 'own';
  return (
    <TableContainer component={Card} variant="outlined">
      <Table aria-label={label} size="small">
        <TableHead>
          <TableRow>
            {!own && <TableCell>Owner</TableCell>}
            <TableCell>Name</TableCell>
            {own && <TableCell>Organization</TableCell>}
            <TableCell>Scopes</TableCell>
            <TableCell>Status</TableCell>
            <TableCell>Expires</TableCell>
            <TableCell>Last used</TableCell>
            <TableCell align="right">
              <Box component="span" sx={visuallyHidden}>
                Actions
              </Box>
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {tokens.map((token) => (
            <TableRow key={token.id}>
              {!own && (
                <TableCell sx={{ overflowWrap: 'anywhere', minWidth: 160 }}>
                  {token.ownerEmail ?? '—'}
                </TableCell>
              )}
              <TableCell sx={{ overflowWrap: 'anywhere', minWidth: 120 }}>
                <Typography variant="body2" sx={{ fontWeight: 600 }}>
                  {token.name}
                </Typography>
                <Typography variant="body2" color="text.secondary">
                  Created {formatDate(token.createdAt)}
                </Typography>
              </TableCell>
              {own && <TableCell>{orgName?.(token.orgId) ?? token.orgId}</TableCell>}
              <TableCell>
                <Scopes token={token} />
              </TableCell>
              <TableCell>
                <StatusChip status={token.status} />
              </TableCell>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>
                <Expires token={token} />
              </TableCell>
              <TableCell>{lastUsedText(token)}</TableCell>
              <TableCell align="right">
                <RevokeButton token={token} onRevoke={onRevoke} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: '6.5rem 1fr', columnGap: 1 }}>
      <Typography component="dt" variant="body2" color="text.secondary">
        {term}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </Box>
  );
}

function TokenCards({ kind, tokens, label, orgName, onRevoke }: Props) {
  const own = kind === 'own';
  return (
    <Stack component="ul" aria-label={label} spacing={1.5} sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {tokens.map((token) => (
        <Card component="li" variant="outlined" key={token.id}>
          <CardContent sx={{ '&:last-child': { pb: 2 } }}>
            <Stack spacing={1}>
              <Stack
                direction="row"
                spacing={1}
                sx={{ alignItems: 'flex-start', justifyContent: 'space-between' }}
              >
                <Typography
                  variant="subtitle1"
                  component="h3"
                  sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}
                >
                  {token.name}
                </Typography>
                <StatusChip status={token.status} />
              </Stack>
              <Scopes token={token} />
              <Box component="dl" sx={{ m: 0, display: 'grid', rowGap: 0.5 }}>
                {own ? (
                  <Detail term="Organization">{orgName?.(token.orgId) ?? token.orgId}</Detail>
                ) : (
                  <Detail term="Owner">{token.ownerEmail ?? '—'}</Detail>
                )}
                <Detail term="Created">{formatDate(token.createdAt)}</Detail>
                <Detail term="Expires">
                  {formatDate(token.expiresAt)}
                  {token.status !== 'revoked' && ` (${expiryText(token)})`}
                </Detail>
                <Detail term="Last used">{lastUsedText(token)}</Detail>
              </Box>
              {token.status !== 'revoked' && (
                <Box>
                  <RevokeButton token={token} onRevoke={onRevoke} />
                </Box>
              )}
            </Stack>
          </CardContent>
        </Card>
      ))}
    </Stack>
  );
}
