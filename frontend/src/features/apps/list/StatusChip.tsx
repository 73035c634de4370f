import Chip from '@mui/material/Chip';
import { amber } from '@mui/material/colors';

import { statusLook } from './status';

/**
 * The store status as a coloured chip: Development grey, Submitted yellow, Published green, Rejected red
 * (spec §2). The theme's warning colour is orange, so Submitted takes amber with dark text (readable in both
 * colour modes).
 */
export function StatusChip({ status }: { status: string | null | undefined }) {
  const look = statusLook(status);
  if (look.color === 'warning') {
    return (
      <Chip
        size="small"
        label={look.label}
        sx={{ bgcolor: amber[400], color: 'rgba(0, 0, 0, 0.87)' }}
      />
    );
  }
  return <Chip size="small" label={look.label} color={look.color} variant="filled" />;
}
