import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import InputAdornment from '@mui/material/InputAdornment';
import SearchIcon from '@mui/icons-material/Search';
import { lazy, memo, Suspense, useState } from 'react';

import { Loading } from './states';
import { useGetUptimeMonthQuery } from './uptime/api';
import { currentUtcMonth, dayLabel, percent } from './uptime/month';
import {
  DayBars,
  Legend,
  MonthNavigator,
  OnlineBadge,
  UpdateBar,
  UptimeError,
} from './uptime/parts';
import type { AppMonthRow, UptimeMonth } from './uptime/types';

// The detail tab carries the chart library: it loads only when an app's tab opens.
const AppUptimeDetail = lazy(() => import('./uptime/AppUptimeDetail'));

type StatusFilter = 'ALL' | 'SUBMITTED' | 'PUBLISHED';

const FILTERS: { value: StatusFilter; label: string }[] = [
  { value: 'ALL', label: 'All' },
  { value: 'SUBMITTED', label: 'Submitted' },
  { value: 'PUBLISHED', label: 'Published' },
];

function matches(row: AppMonthRow, search: string, filter: StatusFilter): boolean {
  if (filter !== 'ALL' && row.appStoreStatus !== filter) return false;
  const needle = search.trim().toLowerCase();
  if (!needle) return true;
  return (
    (row.name ?? '').toLowerCase().includes(needle) ||
    row.packageName.toLowerCase().includes(needle)
  );
}

// Memoized: typing in the search box re-renders the tab, not every bar and tooltip of every app.
const AppRow = memo(function AppRow({
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
            {row.appStoreStatus === null && ' · no longer monitored'}
          </Typography>
        </Box>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexShrink: 0 }}>
          <Typography variant="body2">
            Uptime <strong>{percent(row.uptimePercent)}</strong>
          </Typography>
          <OnlineBadge online={row.online} checked={row.checkedAt !== null} />
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

/**
 * The App Status tab (spec §2, PRODUCT.md §5): every monitored app's month from the uptime monitor, with a
 * search, a status filter that filters, a month navigator and an Update button. Days are UTC days.
 */
export function AppStatusTab({ onOpen }: { onOpen: (packageName: string) => void }) {
  const [month, setMonth] = useState<UptimeMonth>(() => currentUtcMonth());
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<StatusFilter>('ALL');
  const query = useGetUptimeMonthQuery(month);
  // An answer of another month (while the chosen one loads) is not shown as this month's.
  const data =
    query.data?.month.year === month.year && query.data.month.month === month.month
      ? query.data
      : undefined;

  let body;
  if (!data && (query.isLoading || query.isFetching)) {
    body = <Loading label="Loading app status..." />;
  } else if (!data) {
    body = (
      <UptimeError
        text="The app status could not be loaded."
        onRetry={() => void query.refetch()}
      />
    );
  } else if (data.data.length === 0) {
    body = <Typography color="text.secondary">No pending submissions</Typography>;
  } else {
    const rows = data.data.filter((row) => matches(row, search, filter));
    body =
      rows.length === 0 ? (
        <Typography color="text.secondary">No apps match your search</Typography>
      ) : (
        <Stack
          component="ul"
          spacing={1.5}
          aria-label="App status"
          sx={{ listStyle: 'none', p: 0, m: 0 }}
        >
          {rows.map((row) => (
            <AppRow key={row.packageName} row={row} onOpen={onOpen} />
          ))}
        </Stack>
      );
  }

  return (
    <Stack spacing={2}>
      <Stack
        direction={{ xs: 'column', md: 'row' }}
        spacing={2}
        sx={{ alignItems: { md: 'center' }, justifyContent: 'space-between' }}
      >
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          <TextField
            size="small"
            label="Search app"
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
            }}
            slotProps={{
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          <TextField
            select
            size="small"
            label="Status"
            value={filter}
            onChange={(event) => {
              setFilter(event.target.value as StatusFilter);
            }}
            sx={{ minWidth: 150 }}
          >
            {FILTERS.map((option) => (
              <MenuItem key={option.value} value={option.value}>
                {option.label}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <MonthNavigator
            month={month}
            previous={data?.previous}
            next={data?.next}
            onChange={setMonth}
          />
          <UpdateBar
            updatedAt={query.fulfilledTimeStamp}
            fetching={query.isFetching}
            onUpdate={() => void query.refetch()}
          />
        </Stack>
      </Stack>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
      >
        <Typography variant="body2" color="text.secondary">
          Days are UTC days. Uptime is the share of healthy checks in the month.
        </Typography>
        <Legend />
      </Stack>
      {data && query.isError && (
        <UptimeError
          text="The app status could not be updated."
          onRetry={() => void query.refetch()}
        />
      )}
      {body}
    </Stack>
  );
}

/** The closable tab of one app (spec §2 "Service Status"), loaded with its chart when it opens. */
export function AppDetailTab({ packageName }: { packageName: string }) {
  return (
    <Suspense fallback={<Loading label="Loading app details..." />}>
      <AppUptimeDetail packageName={packageName} />
    </Suspense>
  );
}
