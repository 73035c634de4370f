import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import { AuditLog } from '../audit';

/**
 * The Admin Panel's Audit Log tab (platform admins, PRODUCT.md §9): platform roles, the first admin, and
 * review decisions across organizations.
 */
export function AuditLogTab() {
  return (
    <Stack spacing={2}>
      <Typography color="text.secondary">
        Platform role changes and review decisions across every organization, newest first.
      </Typography>
      <AuditLog scope={{ kind: 'platform' }} label="Platform audit log" />
    </Stack>
  );
}
