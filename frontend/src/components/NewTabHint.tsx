import Box from '@mui/material/Box';

import { visuallyHidden } from './visuallyHidden';

/** Hidden text for screen readers: tells that a link opens a new tab. */
export function NewTabHint() {
  return (
    <>
      {' '}
      <Box component="span" sx={visuallyHidden}>
        (opens in a new tab)
      </Box>
    </>
  );
}
