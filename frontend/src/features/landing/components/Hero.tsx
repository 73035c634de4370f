import ArrowForward from '@mui/icons-material/ArrowForward';
import MenuBookOutlined from '@mui/icons-material/MenuBookOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';

import heroUrl from '../../../assets/hero-glasses.svg';
import { externalLinkProps } from '../../../components/externalLinkProps';
import { NewTabHint } from '../../../components/NewTabHint';
import { paths } from '../../../config/paths';
import { RepoIcon } from './RepoIcon';

export function Hero({ docsUrl, sourceUrl }: { docsUrl: string; sourceUrl: string }) {
  return (
    <Box component="section" aria-labelledby="hero-title" sx={{ py: { xs: 5, md: 10 } }}>
      <Container maxWidth="lg">
        <Box
          sx={{
            display: 'grid',
            gap: { xs: 5, md: 8 },
            gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' },
            alignItems: 'center',
          }}
        >
          <div>
            <Typography
              id="hero-title"
              variant="h1"
              sx={{ fontSize: { xs: '2.25rem', sm: '3rem', md: '3.5rem' }, lineHeight: 1.1 }}
            >
              The best way to build apps for smart glasses
            </Typography>
            <Typography
              component="p"
              color="text.secondary"
              sx={{ mt: 2.5, fontSize: { xs: '1.125rem', md: '1.3rem' }, maxWidth: 520 }}
            >
              Build and deploy your own apps in minutes, not months.
            </Typography>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mt: 4 }}>
              <Button
                component={RouterLink}
                to={paths.signIn()}
                variant="contained"
                size="large"
                endIcon={<ArrowForward />}
              >
                Developer Console
              </Button>
              <Button
                href={docsUrl}
                {...externalLinkProps}
                variant="outlined"
                size="large"
                startIcon={<MenuBookOutlined />}
              >
                View Documentation
                <NewTabHint />
              </Button>
            </Stack>
            <Link
              href={sourceUrl}
              {...externalLinkProps}
              sx={{
                mt: 3,
                display: 'inline-flex',
                alignItems: 'center',
                gap: 1,
                fontWeight: 600,
                borderRadius: 1,
              }}
            >
              <RepoIcon url={sourceUrl} fontSize="small" />
              Open source: view the code
              <NewTabHint />
            </Link>
          </div>
          <div>
            <Box
              component="img"
              src={heroUrl}
              alt="Smart glasses showing an app in their lenses, next to a code editor and a new app tile"
              width={560}
              height={420}
              fetchPriority="high"
              sx={{
                display: 'block',
                width: '100%',
                height: 'auto',
                maxWidth: 560,
                mx: 'auto',
                borderRadius: 4,
                boxShadow: 6,
              }}
            />
          </div>
        </Box>
      </Container>
    </Box>
  );
}
