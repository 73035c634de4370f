import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import { Link as RouterLink } from 'react-router';

import { paths } from '../../config/paths';
import { AppsTable } from './list/AppsTable';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/** `/apps` (spec §2): heading, Create App, and the whole apps table. */
export function MyAppsPage() {
  useDocumentTitle('My Apps');
  return (
    <Stack spacing={3}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
      >
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          My Apps
        </Typography>
        <Button
          component={RouterLink}
          to={paths.appCreate}
          variant="contained"
          startIcon={<AddIcon />}
        >
          Create App
        </Button>
      </Stack>
      <AppsTable title="Apps" />
    </Stack>
  );
}
