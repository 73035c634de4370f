import AppRegistrationOutlined from '@mui/icons-material/AppRegistrationOutlined';
import CodeOutlined from '@mui/icons-material/CodeOutlined';
import PersonAddAltOutlined from '@mui/icons-material/PersonAddAltOutlined';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

interface Step {
  title: string;
  description: string;
  icon: ReactNode;
}

const steps: Step[] = [
  {
    title: 'Register',
    description: 'Create a free developer account.',
    icon: <PersonAddAltOutlined />,
  },
  {
    title: 'Create',
    description: 'Define your app using a simple web interface.',
    icon: <AppRegistrationOutlined />,
  },
  {
    title: 'Code',
    description: 'Use our TypeScript SDK to write your app and run it on your own server.',
    icon: <CodeOutlined />,
  },
];

export function Steps() {
  return (
    <Box
      component="section"
      aria-labelledby="steps-title"
      sx={{
        // Fills the rest of the page when the window is taller than the content.
        flexGrow: 1,
        py: { xs: 6, md: 10 },
        bgcolor: 'background.paper',
        borderTop: 1,
        borderColor: 'divider',
      }}
    >
      <Container maxWidth="lg">
        <Typography
          id="steps-title"
          variant="h2"
          sx={{ fontSize: { xs: '1.75rem', md: '2.25rem' }, textAlign: 'center' }}
        >
          Get started in three steps
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 1.5, textAlign: 'center' }}>
          From sign-up to your first app on smart glasses.
        </Typography>
        <Box
          component="ol"
          sx={{
            listStyle: 'none',
            p: 0,
            m: 0,
            mt: { xs: 4, md: 6 },
            display: 'grid',
            gap: 3,
            gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' },
          }}
        >
          {steps.map((step, index) => (
            <Box component="li" key={step.title}>
              <Card variant="outlined" sx={{ height: '100%', bgcolor: 'background.default' }}>
                <CardContent sx={{ p: { xs: 3, md: 4 } }}>
                  <Box sx={{ display: 'flex', alignItems: 'center', gap: 2 }}>
                    <Box
                      aria-hidden
                      sx={{
                        display: 'grid',
                        placeItems: 'center',
                        width: 48,
                        height: 48,
                        borderRadius: 3,
                        color: 'primary.contrastText',
                        bgcolor: 'primary.main',
                      }}
                    >
                      {step.icon}
                    </Box>
                    <Typography variant="overline" color="text.secondary" sx={{ fontWeight: 700 }}>
                      Step {index + 1}
                    </Typography>
                  </Box>
                  <Typography variant="h3" sx={{ fontSize: '1.375rem', mt: 2.5 }}>
                    {step.title}
                  </Typography>
                  <Typography color="text.secondary" sx={{ mt: 1 }}>
                    {step.description}
                  </Typography>
                </CardContent>
              </Card>
            </Box>
          ))}
        </Box>
      </Container>
    </Box>
  );
}
