import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';

import { Loading } from '../../../components/Loading';
import { useGetDayProblemsQuery } from './api';
import { dayCounts, dayLabel, utcDateTime } from './month';
import { OnlineBadge, UptimeError } from './parts';

/** The Problems list of one day, or its empty texts. */
export function DayProblemsView({ packageName, day }: { packageName: string; day: string }) {
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
