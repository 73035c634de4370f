import { useTheme } from '@mui/material/styles';

import type { DayColour } from './types';

/** The theme colours of the day bars. */
export function useDayColours(): Record<DayColour, string> {
  const { palette } = useTheme();
  return {
    green: palette.success.main,
    yellow: palette.warning.main,
    red: palette.error.main,
    grey: palette.grey[400],
  };
}
