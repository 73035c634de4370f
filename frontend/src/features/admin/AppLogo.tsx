import Box from '@mui/material/Box';
import { useState } from 'react';

import placeholder from './app-placeholder.svg';

/**
 * An app's logo, or a placeholder image when it has none or it fails to load (spec §2). Decorative: the
 * app's name is always written next to it.
 */
export function AppLogo({ src, size = 40 }: { src: string | null | undefined; size?: number }) {
  // Remember which address failed, so that a new address gets its own chance.
  const [failed, setFailed] = useState<string | null>(null);
  const usable = src && src !== failed ? src : placeholder;
  return (
    <Box
      component="img"
      src={usable}
      alt=""
      data-placeholder={usable === placeholder ? 'true' : undefined}
      onError={() => {
        if (src) setFailed(src);
      }}
      sx={{
        width: size,
        height: size,
        borderRadius: 1,
        objectFit: 'cover',
        flexShrink: 0,
        bgcolor: 'action.hover',
      }}
    />
  );
}
