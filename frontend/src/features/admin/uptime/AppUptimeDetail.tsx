import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import MenuItem from '@mui/material/MenuItem';
import Typography from '@mui/material/Typography';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlined';
import NetworkCheckIcon from '@mui/icons-material/NetworkCheck';
import { BarPlot } from '@mui/x-charts/BarChart';
import { ChartsAxisHighlight } from '@mui/x-charts/ChartsAxisHighlight';
import { ChartsDataProvider } from '@mui/x-charts/ChartsDataProvider';
import { ChartsSurface } from '@mui/x-charts/ChartsSurface';
import { ChartsTooltip } from '@mui/x-charts/ChartsTooltip';
import { ChartsWrapper } from '@mui/x-charts/ChartsWrapper';
import { ChartsXAxis } from '@mui/x-charts/ChartsXAxis';
import { useState } from 'react';

import { useAppDispatch } from '../../../app/store';
import { errorMessage, isFetchBaseQueryError } from '../../../api/errors';
import { useGetAdminAppQuery } from '../api';
import { AppLogo } from '../AppLogo';
import { usDate } from '../format';
import { Loading } from '../../../components/Loading';
import type { AdminApp } from '../types';
import {
  uptimeApi,
  useGetAppUptimeQuery,
  useGetDayProblemsQuery,
  usePingHealthMutation,
} from './api';
import {
  colourOf,
  COLOUR_LABELS,
  currentUtcMonth,
  dayCounts,
  dayLabel,
  dayOfMonth,
  healthUrl,
  percent,
  todayUtc,
  utcDateTime,
} from './month';
import { Legend, MonthNavigator, OnlineBadge, UpdateBar, UptimeError } from './parts';
import { useDayColours } from './colours';
import { useMonitorRefresh } from './refresh';
import type { AppUptimeDetail as Detail, DayBar, UptimeMonth } from './types';

/** When the app was last submitted: its newest "submitted" history entry, else its last change. */
function submittedAt(app: AdminApp): string {
  const submitted = app.history.filter((entry) => entry.kind === 'submitted');
  return submitted[submitted.length - 1]?.at ?? app.updatedAt;
}

/** The statuses the monitor checks (PRODUCT.md §5). */
const MONITORED: readonly string[] = ['SUBMITTED', 'PUBLISHED'];

/**
 * The current state: All systems operational, or System experiencing issues with the current status; for
 * an app the monitor no longer checks, a neutral Not monitored.
 */
function CurrentState({ detail, status }: { detail: Detail; status: string }) {
  const online = detail.online;
  if (!MONITORED.includes(status)) {
    return (
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'flex-start' }}>
        <HelpOutlineIcon color="disabled" fontSize="large" titleAccess="Not monitored" />
        <Box>
          <Typography variant="h6" component="p">
            Not monitored
          </Typography>
          <Typography variant="body2" color="text.secondary">
            The monitor checks submitted and published apps only; this app is {status.toLowerCase()}
            .{detail.lastCheckedAt && ` Its last check was ${utcDateTime(detail.lastCheckedAt)}.`}
          </Typography>
        </Box>
      </Stack>
    );
  }
  if (!detail.lastCheckedAt) {
    return (
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'flex-start' }}>
        <HelpOutlineIcon color="disabled" fontSize="large" titleAccess="Not checked" />
        <Box>
          <Typography variant="h6" component="p">
            Not checked yet
          </Typography>
          <Typography variant="body2" color="text.secondary">
            The monitor has not checked this app yet: there is no status to show.
          </Typography>
        </Box>
      </Stack>
    );
  }
  return (
    <Stack direction="row" spacing={1.5} sx={{ alignItems: 'flex-start' }}>
      {online ? (
        <CheckCircleIcon color="success" fontSize="large" titleAccess="Online" />
      ) : (
        <ErrorIcon color="error" fontSize="large" titleAccess="Offline" />
      )}
      <Box>
        <Typography variant="h6" component="p">
          {online ? 'All systems operational' : 'System experiencing issues'}
        </Typography>
        {!online && (
          <Typography variant="body2">
            Current status: <strong>{detail.healthStatus}</strong>. Check events below.
          </Typography>
        )}
        <Typography variant="body2" color="text.secondary">
          Last checked {utcDateTime(detail.lastCheckedAt)}
          {detail.statusChangedAt &&
            ` · ${online ? 'Online' : 'Offline'} since ${utcDateTime(detail.statusChangedAt)}`}
          {!online &&
            detail.consecutiveOffline > 0 &&
            ` · ${detail.consecutiveOffline} failed ${detail.consecutiveOffline === 1 ? 'check' : 'checks'} in a row`}
        </Typography>
      </Box>
    </Stack>
  );
}

/** "Check now": the staff ping of the app's health URL, with its live result (not recorded). */
function CheckNow({ publicUrl }: { publicUrl: string }) {
  const [ping, result] = usePingHealthMutation();
  const url = healthUrl(publicUrl);
  let outcome = null;
  if (result.data) {
    const data = result.data;
    const facts = [
      data.status != null ? `HTTP ${data.status}` : 'no answer',
      data.latencyMs != null ? `${data.latencyMs} ms` : null,
    ].filter(Boolean);
    outcome = (
      <Alert severity={data.online ? 'success' : 'error'} role="status">
        {data.online ? 'Online' : 'Offline'}: {data.health} ({facts.join(', ')})
      </Alert>
    );
  } else if (result.isError) {
    outcome = (
      <Alert severity="error" role="status">
        {errorMessage(result.error, 'The health check could not be run. Please try again.')}
      </Alert>
    );
  }
  return (
    <Stack spacing={1}>
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Button
          variant="outlined"
          size="small"
          startIcon={<NetworkCheckIcon />}
          loading={result.isLoading}
          loadingPosition="start"
          onClick={() => void ping(url)}
        >
          Check now
        </Button>
        <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-all' }}>
          {url}
        </Typography>
      </Stack>
      {outcome}
    </Stack>
  );
}

/** The month chart: one bar per UTC day of the real month, coloured by the day; a click picks the day. */
function MonthChart({ days, onPick }: { days: DayBar[]; onPick: (date: string) => void }) {
  const colours = useDayColours();
  return (
    <Box data-testid="uptime-chart">
      <ChartsDataProvider
        height={220}
        skipAnimation
        margin={{ left: 8, right: 8 }}
        xAxis={[
          {
            scaleType: 'band',
            data: days.map((day) => day.date),
            label: 'Day of the month (UTC)',
            valueFormatter: (value: string, context) =>
              context.location === 'tick' ? String(dayOfMonth(value)) : `${dayLabel(value)} (UTC)`,
          },
        ]}
        yAxis={[{ min: 0, max: 1, position: 'none' }]}
        series={[
          {
            type: 'bar',
            data: days.map(() => 1),
            label: 'Checks',
            colorGetter: ({ dataIndex }) => {
              const day = days[dataIndex];
              return colours[day ? colourOf(day) : 'grey'];
            },
            valueFormatter: (_value, { dataIndex }) => {
              const day = days[dataIndex];
              return day ? dayCounts(day) : null;
            },
          },
        ]}
        onAxisClick={(_event, data) => {
          const day = data ? days[data.dataIndex] : undefined;
          if (day) onPick(day.date);
        }}
      >
        <ChartsWrapper hideLegend>
          <ChartsSurface>
            <BarPlot skipAnimation />
            <ChartsAxisHighlight x="band" />
            <ChartsXAxis />
          </ChartsSurface>
          <ChartsTooltip trigger="axis" />
        </ChartsWrapper>
      </ChartsDataProvider>
    </Box>
  );
}

/** The Problems list of one day, or its empty texts. */
function DayProblemsView({ packageName, day }: { packageName: string; day: string }) {
  const query = useGetDayProblemsQuery({ packageName, day });
  const data = query.currentData;
  let body;
  if (!data && (query.isLoading || query.isFetching))
    body = <Loading label="Loading problems..." />;
  else if (!data) {
    body = (
      <UptimeError
        text="The problems of this day could not be loaded."
        onRetry={() => void query.refetch()}
      />
    );
  } else if (data.total === 0) {
    body = (
      <Typography color="text.secondary">No data for this day: no checks were recorded.</Typography>
    );
  } else if (data.problems.length > 0) {
    body = (
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" aria-label={`Problems on ${dayLabel(day)}`}>
          <TableHead>
            <TableRow>
              <TableCell>Package</TableCell>
              <TableCell>Timestamp (UTC)</TableCell>
              <TableCell>Health</TableCell>
              <TableCell>Status</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {data.problems.map((problem) => (
              <TableRow key={`${problem.timestamp}-${problem.health}`}>
                <TableCell sx={{ wordBreak: 'break-all' }}>{problem.packageName}</TableCell>
                <TableCell>{utcDateTime(problem.timestamp)}</TableCell>
                <TableCell>
                  {problem.health}
                  {problem.httpStatus != null && ` (HTTP ${problem.httpStatus})`}
                </TableCell>
                <TableCell>
                  <OnlineBadge online={problem.onlineStatus} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    );
  } else if (data.unhealthy === 0) {
    body = (
      <Box>
        <Typography sx={{ fontWeight: 600 }}>No issues found for this day</Typography>
        <Typography color="text.secondary">All systems were operational</Typography>
      </Box>
    );
  } else {
    body = (
      <Typography color="text.secondary">
        This day had {data.unhealthy} unhealthy {data.unhealthy === 1 ? 'check' : 'checks'}; the
        single checks are no longer kept.
      </Typography>
    );
  }
  return (
    <Stack spacing={1} component="section" aria-label="Problems">
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        Problems on {dayLabel(day)} (UTC)
      </Typography>
      {data && <Typography variant="body2">{dayCounts(data)}</Typography>}
      {data && !data.detailsKept && (
        <Alert severity="info" variant="outlined">
          Details of single checks are kept for 48 hours; older days keep only their counts.
        </Alert>
      )}
      {body}
    </Stack>
  );
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
