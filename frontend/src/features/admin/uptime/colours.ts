import { useTheme } from '@mui/material/styles';

/**
 * Mixed days are yellow (spec §2's legend): a dark gold on light backgrounds, which keeps a 3:1 contrast
 * with the page as a graphic must (MUI's warning colour is orange), and a bright yellow on dark ones.
 */
const MIXED = { light: '#a88400', dark: '#fdd835' };

import type { DayColour } from './types';

/** The theme colours of the day bars. */
export function useDayColours(): Record<DayColour, string> {
  const { palette } = useTheme();
  return {
    green: palette.success.main,
    yellow: MIXED[palette.mode],
    red: palette.error.main,
    grey: palette.grey[400],
  };
}
