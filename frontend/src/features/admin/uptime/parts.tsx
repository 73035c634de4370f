import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import RefreshIcon from '@mui/icons-material/Refresh';

import {
  clockTime,
  COLOUR_LABELS,
  COLOURS,
  colourOf,
  dayCounts,
  dayLabel,
  isFutureMonth,
  monthLabel,
} from './month';
import { useDayColours } from './colours';
import type { DayBar, UptimeMonth } from './types';

/** An uptime load failure: only logged in the specification (§8), shown here unobtrusively with a retry. */
export function UptimeError({ text, onRetry }: { text: string; onRetry: () => void }) {
  return (
    <Alert
      severity="warning"
      variant="outlined"
      action={
        <Button color="inherit" size="small" onClick={onRetry}>
          Try again
        </Button>
      }
    >
      {text}
    </Alert>
  );
}

/** "Last updated" with the time of the last answer (or Never), and the Update button that refetches. */
export function UpdateBar({
  updatedAt,
  fetching,
  onUpdate,
}: {
  updatedAt: number | undefined;
  fetching: boolean;
  onUpdate: () => void;
}) {
  return (
    <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
      <Typography variant="body2" color="text.secondary" aria-live="polite">
        Last updated: {updatedAt ? clockTime(updatedAt) : 'Never'}
      </Typography>
      <Button
        variant="outlined"
        size="small"
        startIcon={<RefreshIcon />}
        onClick={onUpdate}
        loading={fetching}
        loadingPosition="start"
      >
        Update
      </Button>
    </Stack>
  );
}

/** Previous and next month; a month after the current UTC month cannot be chosen. */
export function MonthNavigator({
  month,
  previous,
  next,
  onChange,
}: {
  month: UptimeMonth;
  previous: UptimeMonth | null | undefined;
  next: UptimeMonth | null | undefined;
  onChange: (month: UptimeMonth) => void;
}) {
  const canNext = next != null && !isFutureMonth(next);
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
      <Tooltip title="Previous month">
        <span>
          <IconButton
            size="small"
            aria-label="Previous month"
            disabled={!previous}
            onClick={() => {
              if (previous) onChange(previous);
            }}
          >
            <ChevronLeftIcon />
          </IconButton>
        </span>
      </Tooltip>
      <Typography
        component="span"
        sx={{ fontWeight: 600, minWidth: '9rem', textAlign: 'center' }}
        aria-live="polite"
        data-testid="uptime-month"
      >
        {monthLabel(month)}
      </Typography>
      <Tooltip title="Next month">
        <span>
          <IconButton
            size="small"
            aria-label="Next month"
            disabled={!canNext}
            onClick={() => {
              if (next) onChange(next);
            }}
          >
            <ChevronRightIcon />
          </IconButton>
        </span>
      </Tooltip>
    </Stack>
  );
}

/** The tooltip text of a day bar. */
function DayTip({ day }: { day: DayBar }) {
  return (
    <>
      <strong>{dayLabel(day.date)} (UTC)</strong>
      <br />
      Healthy: {day.healthy}
      <br />
      Unhealthy: {day.unhealthy}
      <br />
      Total: {day.total}
    </>
  );
}

/** One thin bar per UTC day of the month, coloured by the day's checks, each with its tooltip. */
export function DayBars({ days, label }: { days: DayBar[]; label: string }) {
  const colours = useDayColours();
  return (
    <Box
      role="list"
      aria-label={label}
      sx={{ display: 'flex', gap: '2px', alignItems: 'stretch', height: 28, minWidth: 0 }}
    >
      {days.map((day) => {
        const colour = colourOf(day);
        return (
          <Tooltip key={day.date} title={<DayTip day={day} />} placement="top" arrow>
            <Box
              role="listitem"
              aria-label={`${dayLabel(day.date)}: ${COLOUR_LABELS[colour]}. ${dayCounts(day)}`}
              data-colour={colour}
              sx={{
                flex: '1 1 0',
                minWidth: 3,
                borderRadius: 0.5,
                bgcolor: colours[colour],
              }}
            />
          </Tooltip>
        );
      })}
    </Box>
  );
}

/** The legend of the bar colours. */
export function Legend() {
  const colours = useDayColours();
  return (
    <Stack
      direction="row"
      component="ul"
      aria-label="Legend"
      sx={{ flexWrap: 'wrap', gap: 2, listStyle: 'none', p: 0, m: 0 }}
    >
      {COLOURS.map((colour) => (
        <Stack
          key={colour}
          component="li"
          direction="row"
          spacing={0.75}
          sx={{ alignItems: 'center' }}
        >
          <Box
            aria-hidden
            sx={{ width: 12, height: 12, borderRadius: 0.5, bgcolor: colours[colour] }}
          />
          <Typography variant="body2">{COLOUR_LABELS[colour]}</Typography>
        </Stack>
      ))}
    </Stack>
  );
}

/**
 * The Online/Offline badge (spec §4: healthy means Online, everything else Offline). An app the monitor has not
 * checked yet is neither: it reads Not checked; nor is one it no longer checks (rejected, or back in
 * development): Not monitored.
 */
export function OnlineBadge({
  online,
  checked = true,
  monitored = true,
}: {
  online: boolean;
  checked?: boolean;
  monitored?: boolean;
}) {
  const [label, colour, background] = !monitored
    ? ['Not monitored', 'text.primary', 'action.selected']
    : !checked
      ? ['Not checked', 'text.primary', 'action.selected']
      : online
        ? ['Online', 'success.contrastText', 'success.dark']
        : ['Offline', 'error.contrastText', 'error.dark'];
  return (
    <Box
      component="span"
      sx={{
        display: 'inline-block',
        px: 1,
        py: 0.25,
        borderRadius: 1,
        fontSize: '0.8125rem',
        fontWeight: 600,
        color: colour,
        bgcolor: background,
      }}
    >
      {label}
    </Box>
  );
}
