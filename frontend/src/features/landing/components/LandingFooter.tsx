import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Divider from '@mui/material/Divider';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';

import { externalLinkProps } from '../../../components/externalLinkProps';
import { Logo } from '../../../components/Logo';
import { NewTabHint } from '../../../components/NewTabHint';
import type { PublicConfig } from '../../publicConfig';

type Props = Pick<PublicConfig, 'docsUrl' | 'exampleAppUrl' | 'sourceUrl'>;

export function LandingFooter({ docsUrl, exampleAppUrl, sourceUrl }: Props) {
  const year = new Date().getFullYear();
  const resources = [
    { label: 'Documentation', href: docsUrl },
    { label: 'Example App', href: exampleAppUrl },
    { label: 'Main Repository', href: sourceUrl },
  ];

  return (
    <Box component="footer" sx={{ borderTop: 1, borderColor: 'divider', py: { xs: 5, md: 6 } }}>
      <Container maxWidth="lg">
        <Box
          sx={{
            display: 'grid',
            gap: 4,
            gridTemplateColumns: { xs: '1fr', md: '2fr 1fr' },
          }}
        >
          <div>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25 }}>
              <Logo size={28} />
              <Typography component="span" sx={{ fontWeight: 700 }}>
                Developer Portal
              </Typography>
            </Box>
            <Typography color="text.secondary" sx={{ mt: 2, maxWidth: 440 }}>
              Build apps for the open source operating system for smart glasses.
            </Typography>
          </div>
          <nav aria-labelledby="footer-resources">
            <Typography
              id="footer-resources"
              variant="overline"
              component="h2"
              sx={{ fontWeight: 700, color: 'text.secondary' }}
            >
              Resources
            </Typography>
            <Box
              component="ul"
              sx={{ listStyle: 'none', p: 0, m: 0, mt: 1, display: 'grid', gap: 1 }}
            >
              {resources.map((resource) => (
                <li key={resource.label}>
                  <Link href={resource.href} {...externalLinkProps} color="text.primary">
                    {resource.label}
                    <NewTabHint />
                  </Link>
                </li>
              ))}
            </Box>
          </nav>
        </Box>
        <Divider sx={{ my: 4 }} />
        <Typography variant="body2" color="text.secondary">
          © {year} Developer Portal contributors. Free and open source software.
        </Typography>
      </Container>
    </Box>
  );
}
