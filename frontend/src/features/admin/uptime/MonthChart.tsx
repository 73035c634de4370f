import Box from '@mui/material/Box';
import { BarPlot } from '@mui/x-charts/BarChart';
import { ChartsAxisHighlight } from '@mui/x-charts/ChartsAxisHighlight';
import { ChartsDataProvider } from '@mui/x-charts/ChartsDataProvider';
import { ChartsSurface } from '@mui/x-charts/ChartsSurface';
import { ChartsTooltip } from '@mui/x-charts/ChartsTooltip';
import { ChartsWrapper } from '@mui/x-charts/ChartsWrapper';
import { ChartsXAxis } from '@mui/x-charts/ChartsXAxis';

import { colourOf, dayCounts, dayLabel, dayOfMonth } from './month';
import { useDayColours } from './colours';
import type { DayBar } from './types';

/** The month chart: one bar per UTC day of the real month, coloured by the day; a click picks the day. */
export function MonthChart({ days, onPick }: { days: DayBar[]; onPick: (date: string) => void }) {
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
