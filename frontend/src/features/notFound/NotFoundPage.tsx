import ArrowBack from '@mui/icons-material/ArrowBack';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';

import { Logo } from '../../components/Logo';
import { paths } from '../../config/paths';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/** Any path the route table does not know. */
export function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <Stack
      component="main"
      spacing={2}
      sx={{
        minHeight: '100dvh',
        alignItems: 'center',
        justifyContent: 'center',
        textAlign: 'center',
        px: 3,
      }}
    >
      <title>Page not found · Developer Portal</title>
      <Logo size={56} />
      <Typography variant="overline" color="text.secondary" sx={{ fontWeight: 700 }}>
        Error 404
      </Typography>
      <Typography variant="h1" sx={{ fontSize: { xs: '2rem', sm: '2.5rem' } }}>
        Page not found
      </Typography>
      <Typography color="text.secondary" sx={{ maxWidth: 440 }}>
        The page you are looking for does not exist or has moved.
      </Typography>
      <Button
        component={RouterLink}
        to={paths.dashboard}
        variant="contained"
        size="large"
        startIcon={<ArrowBack />}
      >
        Back to Dashboard
      </Button>
    </Stack>
  );
}
