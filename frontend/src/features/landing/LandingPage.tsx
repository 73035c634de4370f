import Box from '@mui/material/Box';

import { SkipLink } from '../../components/SkipLink';
import { usePublicConfig } from '../publicConfig';
import { Hero } from './components/Hero';
import { LandingFooter } from './components/LandingFooter';
import { LandingHeader } from './components/LandingHeader';
import { Steps } from './components/Steps';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/** Public landing page at `/` (specification §1, §2). */
export function LandingPage() {
  useDocumentTitle();
  const { docsUrl, sourceUrl, exampleAppUrl } = usePublicConfig();

  return (
    <Box sx={{ minHeight: '100dvh', display: 'flex', flexDirection: 'column' }}>
      <title>Developer Portal</title>
      <SkipLink />
      <LandingHeader />
      <Box
        component="main"
        id="main"
        tabIndex={-1}
        sx={{ flex: 1, display: 'flex', flexDirection: 'column', outline: 'none' }}
      >
        <Hero docsUrl={docsUrl} sourceUrl={sourceUrl} />
        <Steps />
      </Box>
      <LandingFooter docsUrl={docsUrl} exampleAppUrl={exampleAppUrl} sourceUrl={sourceUrl} />
    </Box>
  );
}
