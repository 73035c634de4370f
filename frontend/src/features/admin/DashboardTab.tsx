import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import { useGetAdminStatsQuery } from './api';
import { AppLogo } from './AppLogo';
import { usDateTime } from './format';
import { Loading } from '../../components/Loading';
import { LoadError } from './states';

function StatCard({ label, value }: { label: string; value: number }) {
  return (
    <Card variant="outlined" component="section" aria-label={label}>
      <CardContent>
        <Typography color="text.secondary" component="h3" variant="subtitle2">
          {label}
        </Typography>
        <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>
          {value}
        </Typography>
      </CardContent>
    </Card>
  );
}

/** The Dashboard tab (spec §2): four counts and the recent submissions. */
export function DashboardTab({ onReview }: { onReview: (packageName: string) => void }) {
  const stats = useGetAdminStatsQuery();
  if (stats.isLoading) return <Loading label="Loading statistics..." />;
  if (!stats.data) {
    return (
      <LoadError
        text="Failed to load the admin statistics. Please try again."
        onRetry={() => void stats.refetch()}
      />
    );
  }
  const { counts, recentSubmissions } = stats.data;
  const total = counts.development + counts.submitted + counts.published + counts.rejected;

  return (
    <Stack spacing={3}>
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          gridTemplateColumns: { xs: '1fr', sm: 'repeat(2, 1fr)', md: 'repeat(4, 1fr)' },
        }}
      >
        <StatCard label="Pending Review" value={counts.submitted} />
        <StatCard label="Published" value={counts.published} />
        <StatCard label="Rejected" value={counts.rejected} />
        <StatCard label="Total Apps" value={total} />
      </Box>
      <Card variant="outlined" component="section" aria-labelledby="recent-submissions">
        <CardContent>
          <Typography id="recent-submissions" variant="h6" component="h2">
            Recent Submissions
          </Typography>
          {recentSubmissions.length === 0 ? (
            <Typography color="text.secondary" sx={{ pt: 2 }}>
              No pending submissions
            </Typography>
          ) : (
            <List aria-labelledby="recent-submissions">
              {recentSubmissions.map((app) => (
                <ListItem key={app.packageName} divider sx={{ gap: 2, flexWrap: 'wrap' }}>
                  <AppLogo src={app.logoURL} />
                  <Box sx={{ flex: '1 1 12rem', minWidth: 0 }}>
                    <Typography sx={{ fontWeight: 600 }}>{app.name}</Typography>
                    <Typography
                      variant="body2"
                      color="text.secondary"
                      sx={{ wordBreak: 'break-all' }}
                    >
                      {app.packageName}
                    </Typography>
                  </Box>
                  <Typography variant="body2" color="text.secondary">
                    Submitted {usDateTime(app.updatedAt)}
                  </Typography>
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
                </ListItem>
              ))}
            </List>
          )}
        </CardContent>
      </Card>
    </Stack>
  );
}
