import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';

import { paths } from '../../config/paths';

/** Organization Settings, admins: the way to the Webhooks page. */
export function WebhooksLinkCard() {
  return (
    <Card variant="outlined" component="section" aria-labelledby="webhooks-title">
      <CardContent>
        <Stack spacing={1.5} sx={{ alignItems: 'flex-start' }}>
          <Typography id="webhooks-title" variant="h6" component="h2">
            Webhooks
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Tell your chat, CI and on-call tools when a review decision lands, an app goes offline
            or a member joins: signed requests, retried, with a delivery log.
          </Typography>
          <Button component={RouterLink} to={paths.webhooks} variant="outlined">
            Manage webhooks
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}
