import Alert from '@mui/material/Alert';
import type { SxProps, Theme } from '@mui/material/styles';
import { useSearchParams } from 'react-router';

/**
 * The welcome after accepting an invitation (`/org-settings?welcome=true&orgName=…`, spec §6), shown by the
 * settings page and, while the organization's two-factor requirement holds its screens back, by the notice.
 */
export function JoinedBanner({ fallbackName, sx }: { fallbackName?: string; sx?: SxProps<Theme> }) {
  const [params] = useSearchParams();
  if (params.get('welcome') !== 'true') return null;
  return (
    <Alert severity="success" sx={sx}>
      Welcome to {params.get('orgName') ?? fallbackName ?? 'your new organization'}! You have joined
      the organization.
    </Alert>
  );
}
