import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { memo } from 'react';

import { dayLabel, percent } from './month';
import { DayBars, OnlineBadge } from './parts';
import type { AppMonthRow } from './types';

/**
 * One app's row of the App Status tab: name, uptime, badge and a bar per day; a click opens its tab.
 * Memoized: typing in the search box re-renders the tab, not every bar and tooltip of every app.
 */
export const AppRow = memo(function AppRow({
  row,
  onOpen,
}: {
  row: AppMonthRow;
  onOpen: (packageName: string) => void;
}) {
  const name = row.name ?? row.packageName;
  const first = row.days[0];
  const last = row.days[row.days.length - 1];
  return (
    <Paper
      variant="outlined"
      component="li"
      aria-label={name}
      onClick={() => {
        onOpen(row.packageName);
      }}
      sx={{ p: 2, cursor: 'pointer', '&:hover': { bgcolor: 'action.hover' } }}
    >
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' }, mb: 1.5 }}
      >
        <Box sx={{ minWidth: 0 }}>
          <Link
            component="button"
            type="button"
            variant="subtitle1"
            underline="hover"
            sx={{ fontWeight: 600, textAlign: 'left' }}
            onClick={(event) => {
              event.stopPropagation();
              onOpen(row.packageName);
            }}
          >
            {name}
          </Link>
          <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-all' }}>
            {row.packageName}
          </Typography>
        </Box>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexShrink: 0 }}>
          <Typography variant="body2">
            Uptime <strong>{percent(row.uptimePercent)}</strong>
          </Typography>
          <OnlineBadge
            online={row.online}
            checked={row.checkedAt !== null}
            monitored={row.appStoreStatus !== null}
          />
        </Stack>
      </Stack>
      <DayBars days={row.days} label={`Daily health of ${name}`} />
      {first && last && (
        <Stack direction="row" sx={{ justifyContent: 'space-between', mt: 0.5 }} aria-hidden>
          <Typography variant="caption" color="text.secondary">
            {dayLabel(first.date)}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {dayLabel(last.date)}
          </Typography>
        </Stack>
      )}
    </Paper>
  );
});
