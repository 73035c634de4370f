import Chip from '@mui/material/Chip';

import { statusLook } from './status';

/** The store status as a coloured chip: Development grey, Submitted yellow, Published green, Rejected red. */
export function StatusChip({ status }: { status: string | null | undefined }) {
  const look = statusLook(status);
  return <Chip size="small" label={look.label} color={look.color} variant="filled" />;
}
