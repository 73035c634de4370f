import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { secondaryColumn } from '../../components/secondaryColumn';

import { useGetSubmittedAppsQuery } from './api';
import { AppLogo } from './AppLogo';
import { usDate } from './format';
import { Loading } from '../../components/Loading';
import { LoadError } from './states';

/** The App Submissions tab (spec §2): every app waiting for review, oldest submission first. */
export function SubmissionsTab({ onReview }: { onReview: (packageName: string) => void }) {
  const submitted = useGetSubmittedAppsQuery();
  if (submitted.isLoading) return <Loading label="Loading submissions..." />;
  if (!submitted.data) {
    return (
      <LoadError
        text="Failed to load the submitted apps. Please try again."
        onRetry={() => void submitted.refetch()}
      />
    );
  }
  if (submitted.data.length === 0) {
    return <Typography color="text.secondary">No pending submissions</Typography>;
  }
  return (
    <TableContainer component={Card} variant="outlined">
      <Table aria-label="App submissions">
        <TableHead>
          <TableRow>
            <TableCell>App</TableCell>
            <TableCell sx={secondaryColumn}>Package name</TableCell>
            <TableCell sx={secondaryColumn}>Submitted</TableCell>
            <TableCell align="right">Actions</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {submitted.data.map((app) => (
            <TableRow key={app.packageName}>
              <TableCell>
                <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
                  <AppLogo src={app.logoURL} />
                  <Typography sx={{ fontWeight: 600 }}>{app.name}</Typography>
                </Stack>
              </TableCell>
              <TableCell sx={{ ...secondaryColumn, wordBreak: 'break-all' }}>
                {app.packageName}
              </TableCell>
              <TableCell sx={secondaryColumn}>{usDate(app.updatedAt)}</TableCell>
              <TableCell align="right">
                <Button
                  variant="outlined"
                  size="small"
                  onClick={() => {
                    onReview(app.packageName);
                  }}
                  aria-label={`Review ${app.name}`}
                >
                  Review
                </Button>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
