import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import MenuItem from '@mui/material/MenuItem';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

import { useAppDispatch } from '../../../app/store';
import { isFetchBaseQueryError } from '../../../api/errors';
import { useGetAdminAppQuery } from '../api';
import { AppLogo } from '../AppLogo';
import { usDate } from '../format';
import { Loading } from '../../../components/Loading';
import type { AdminApp } from '../types';
import { uptimeApi, useGetAppUptimeQuery } from './api';
import { colourOf, COLOUR_LABELS, currentUtcMonth, dayLabel, percent, todayUtc } from './month';
import { Legend, MonthNavigator, UpdateBar, UptimeError } from './parts';
import { useMonitorRefresh } from './refresh';
import type { UptimeMonth } from './types';
import { CheckNow, CurrentState } from './AppState';
import { DayProblemsView } from './DayProblems';
import { MonthChart } from './MonthChart';

/** When the app was last submitted: its newest "submitted" history entry, else its last change. */
function submittedAt(app: AdminApp): string {
  const submitted = app.history.filter((entry) => entry.kind === 'submitted');
  return submitted[submitted.length - 1]?.at ?? app.updatedAt;
}

function UptimeSection({ packageName, app }: { packageName: string; app: AdminApp }) {
  const [month, setMonth] = useState<UptimeMonth>(() => currentUtcMonth());
  const [picked, setPicked] = useState<string | null>(null);
  const dispatch = useAppDispatch();
  const query = useGetAppUptimeQuery({ packageName, ...month }, useMonitorRefresh());
  const data =
    query.data?.month.year === month.year && query.data.month.month === month.month
      ? query.data
      : undefined;
  const day = picked && data?.days.some((d) => d.date === picked) ? picked : null;

  const header = (
    <Stack
      direction={{ xs: 'column', sm: 'row' }}
      spacing={2}
      sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
    >
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', minWidth: 0 }}>
        <AppLogo src={app.logoURL} size={56} />
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="h6" component="h2">
            {app.name}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-all' }}>
            {app.packageName || 'N/A'} · Submitted {usDate(submittedAt(app))}
          </Typography>
        </Box>
      </Stack>
      <UpdateBar
        updatedAt={data ? query.fulfilledTimeStamp : undefined}
        fetching={query.isFetching}
        onUpdate={() => {
          // The chart and the open day's problems both carry the app's tag; the App Status list shows
          // the same badge, so it is asked again too.
          dispatch(
            uptimeApi.util.invalidateTags([
              { type: 'Uptime', id: `app:${packageName}` },
              { type: 'Uptime', id: 'MONTH' },
            ]),
          );
        }}
      />
    </Stack>
  );

  let body;
  if (!data && (query.isLoading || query.isFetching)) body = <Loading label="Loading uptime..." />;
  else if (!data) {
    body = (
      <UptimeError
        text="The uptime of this app could not be loaded."
        onRetry={() => void query.refetch()}
      />
    );
  } else {
    const monthDays = data.days;
    // The chart shows the whole month; only days that have begun can be picked.
    const today = todayUtc();
    const pickableDays = monthDays.filter((d) => d.date <= today);
    const pick = (date: string) => {
      if (date <= today) setPicked(date);
    };
    body = (
      <Stack spacing={2}>
        <CurrentState detail={data} status={app.appStoreStatus} />
        <CheckNow publicUrl={app.publicUrl} />
        {query.isError && (
          <UptimeError
            text="The uptime could not be updated."
            onRetry={() => void query.refetch()}
          />
        )}
        <Paper variant="outlined" sx={{ p: 2 }}>
          <Stack spacing={1.5}>
            <Stack
              direction={{ xs: 'column', sm: 'row' }}
              spacing={1}
              sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
            >
              <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
                Uptime {percent(data.uptimePercent)}
              </Typography>
              <MonthNavigator
                month={month}
                previous={month.year === 1970 && month.month === 1 ? null : prevOf(month)}
                next={nextOf(month)}
                onChange={(next) => {
                  setMonth(next);
                  setPicked(null);
                }}
              />
            </Stack>
            <Typography variant="body2" color="text.secondary">
              One bar per day of the month; days are UTC days. Click a day for its problems.
            </Typography>
            <MonthChart days={monthDays} onPick={pick} />
            <Legend />
            <TextField
              select
              size="small"
              label="Day (UTC)"
              value={day ?? ''}
              onChange={(event) => {
                setPicked(event.target.value || null);
              }}
              sx={{ maxWidth: 320 }}
            >
              {pickableDays.map((d) => (
                <MenuItem key={d.date} value={d.date}>
                  {dayLabel(d.date)} · {COLOUR_LABELS[colourOf(d)]}
                </MenuItem>
              ))}
            </TextField>
          </Stack>
        </Paper>
        {day && <DayProblemsView packageName={packageName} day={day} />}
      </Stack>
    );
  }

  return (
    <Stack spacing={2}>
      {header}
      {body}
    </Stack>
  );
}

const prevOf = ({ year, month }: UptimeMonth): UptimeMonth =>
  month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
const nextOf = ({ year, month }: UptimeMonth): UptimeMonth =>
  month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 };

/**
 * The app detail tab (spec §2 "Service Status", PRODUCT.md §5): the app, its current state, a live check,
 * the month chart from the monitor's day rollups and one day's problems. Real data only.
 */
export default function AppUptimeDetail({ packageName }: { packageName: string }) {
  const app = useGetAdminAppQuery(packageName);
  if (app.isLoading) return <Loading label="Loading app details..." />;
  if (!app.data) {
    if (isFetchBaseQueryError(app.error) && app.error.status === 404) {
      return <Alert severity="warning">App not found</Alert>;
    }
    return (
      <UptimeError
        text="Error loading app details. Please try again."
        onRetry={() => void app.refetch()}
      />
    );
  }
  return (
    <Stack spacing={2}>
      <Typography variant="overline" component="p" color="text.secondary">
        Service Status
      </Typography>
      <UptimeSection packageName={packageName} app={app.data} />
    </Stack>
  );
}
