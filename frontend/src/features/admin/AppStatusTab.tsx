import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import InputAdornment from '@mui/material/InputAdornment';
import SearchIcon from '@mui/icons-material/Search';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';

import { Loading } from '../../components/Loading';
import { useGetUptimeMonthQuery } from './uptime/api';
import { currentUtcMonth } from './uptime/month';
import { Legend, MonthNavigator, UpdateBar, UptimeError } from './uptime/parts';
import { useMonitorRefresh } from './uptime/refresh';
import type { StatusFilter, UptimeMonth } from './uptime/types';
import { AppRow } from './uptime/AppStatusRow';
import { Pager } from './uptime/Pager';

// The detail tab carries the chart library: it loads only when an app's tab opens.
const AppUptimeDetail = lazy(() => import('./uptime/AppUptimeDetail'));

/** How long the search waits after the last key before it asks the server. */
const SEARCH_DELAY_MS = 300;

const FILTERS: { value: StatusFilter; label: string }[] = [
  { value: 'ALL', label: 'All' },
  { value: 'SUBMITTED', label: 'Submitted' },
  { value: 'PUBLISHED', label: 'Published' },
];

/**
 * The App Status tab (spec §2, PRODUCT.md §5): the monitored apps' month from the uptime monitor, a page at a
 * time, with a search and a status filter that the server applies, a month navigator and an Update button.
 * Days are UTC days.
 */
export function AppStatusTab({ onOpen }: { onOpen: (packageName: string) => void }) {
  const [month, setMonth] = useState<UptimeMonth>(() => currentUtcMonth());
  const [search, setSearch] = useState('');
  const [searched, setSearched] = useState('');
  const [filter, setFilter] = useState<StatusFilter>('ALL');
  const [page, setPage] = useState(1);
  const listTop = useRef<HTMLDivElement>(null);
  // The server is asked once typing pauses, from the first page.
  useEffect(() => {
    if (search === searched) return;
    const timer = setTimeout(() => {
      setSearched(search);
      setPage(1);
    }, SEARCH_DELAY_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [search, searched]);
  const query = useGetUptimeMonthQuery(
    { ...month, page, search: searched, status: filter },
    useMonitorRefresh(),
  );
  // An answer of another month (while the chosen one loads) is not shown as this month's.
  const data =
    query.data?.month.year === month.year && query.data.month.month === month.month
      ? query.data
      : undefined;
  const toPage = (next: number) => {
    setPage(next);
    // The top of the list, when the pager below it was used (jsdom has no scrolling).
    const top: Partial<Pick<HTMLElement, 'scrollIntoView'>> | null = listTop.current;
    top?.scrollIntoView?.({ block: 'nearest' });
  };

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
  } else if (data.total === 0) {
    body = <Typography color="text.secondary">No pending submissions</Typography>;
  } else if (data.matching === 0) {
    body = <Typography color="text.secondary">No apps match your search</Typography>;
  } else if (data.data.length === 0) {
    body = (
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Typography color="text.secondary">This page has no apps any more.</Typography>
        <Button
          size="small"
          onClick={() => {
            toPage(1);
          }}
        >
          First page
        </Button>
      </Stack>
    );
  } else {
    const pager = (
      <Pager page={data.page} pageSize={data.pageSize} matching={data.matching} onPage={toPage} />
    );
    body = (
      <Stack spacing={1.5}>
        {pager}
        <Stack
          component="ul"
          spacing={1.5}
          aria-label="App status"
          aria-busy={query.isFetching}
          sx={{
            listStyle: 'none',
            p: 0,
            m: 0,
            opacity: query.isFetching && !query.currentData ? 0.6 : 1,
          }}
        >
          {data.data.map((row) => (
            <AppRow key={row.packageName} row={row} onOpen={onOpen} />
          ))}
        </Stack>
        {data.data.length > 10 && pager}
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
              setPage(1);
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
            onChange={(next) => {
              setMonth(next);
              setPage(1);
            }}
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
      <div ref={listTop} />
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
