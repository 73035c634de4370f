import Box from '@mui/material/Box';

import logoUrl from '../assets/logo.svg';

/**
 * The portal's logo mark. Decorative by default: it always sits next to the
 * text "Developer Portal", which names the link it is in.
 */
export function Logo({ size = 32, alt = '' }: { size?: number; alt?: string }) {
  return (
    <Box
      component="img"
      src={logoUrl}
      alt={alt}
      width={size}
      height={size}
      sx={{ display: 'block', flexShrink: 0 }}
    />
  );
}
