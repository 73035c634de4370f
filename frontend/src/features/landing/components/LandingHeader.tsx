import AppBar from '@mui/material/AppBar';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';

import { Logo } from '../../../components/Logo';
import { paths } from '../../../config/paths';
import { ColorModeToggle } from '../../../theme/ColorModeToggle';

export function LandingHeader() {
  return (
    <AppBar
      position="sticky"
      color="inherit"
      elevation={0}
      sx={{
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
      }}
    >
      <Container maxWidth="lg">
        <Toolbar disableGutters sx={{ gap: { xs: 0.5, sm: 1.5 } }}>
          <Link
            component={RouterLink}
            to={paths.home}
            underline="none"
            color="inherit"
            sx={{ display: 'flex', alignItems: 'center', gap: 1.25, mr: 'auto', borderRadius: 1 }}
          >
            <Logo size={34} />
            <Typography component="span" sx={{ fontWeight: 700, fontSize: '1.125rem' }}>
              Developer Portal
            </Typography>
          </Link>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <ColorModeToggle />
            <Button component={RouterLink} to={paths.signIn()} variant="contained">
              Sign In
            </Button>
          </Stack>
        </Toolbar>
      </Container>
    </AppBar>
  );
}
