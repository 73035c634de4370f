import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useMemo } from 'react';

import { Loading } from '../../components/Loading';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useCurrentOrg, useGetOrgQuery } from '../orgs';
import { AuditLog } from './AuditLog';
import type { AuditPerson } from './types';

export const ONLY_ADMINS =
  'Only organization admins can see the audit log. Ask an admin of this organization if you need to know who changed something.';

/**
 * The organization's Audit Log page (PRODUCT.md §9): who changed what in the current organization, when
 * and from where. Only its admins read it (the server refuses the others too); members who open the address
 * are told so.
 */
export function AuditLogPage() {
  useDocumentTitle('Audit Log');
  const { current, isAdmin, isLoading, isError, refetch } = useCurrentOrg();
  // The members are the people the "Person" filter offers (with whoever the entries name).
  const details = useGetOrgQuery(current?.id ?? '', { skip: !current || !isAdmin });
  const people = useMemo<AuditPerson[]>(
    () => (details.data?.members ?? []).map((member) => member.user),
    [details.data],
  );

  let body;
  if (isLoading) {
    body = <Loading label="Loading organization..." />;
  } else if (isError) {
    body = (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={refetch}>
            Retry
          </Button>
        }
      >
        Failed to load organization data. Please try again.
      </Alert>
    );
  } else if (!current) {
    body = (
      <Alert severity="info">
        You don&apos;t have an active organization. Please create or join an organization first.
      </Alert>
    );
  } else if (!isAdmin) {
    body = <Alert severity="info">{ONLY_ADMINS}</Alert>;
  } else {
    body = (
      <AuditLog
        key={current.id}
        scope={{ kind: 'org', orgId: current.id }}
        people={people}
        label={`Audit log of ${current.name}`}
      />
    );
  }

  return (
    <Stack spacing={3}>
      <div>
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          Audit Log
        </Typography>
        <Typography color="text.secondary">
          {current
            ? `Who changed what in ${current.name}, when and from where.`
            : 'Who changed what in the organization, when and from where.'}
        </Typography>
      </div>
      {body}
    </Stack>
  );
}
