import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import type { ReactNode } from 'react';
import { Provider as ReduxProvider } from 'react-redux';

import { COLOR_MODE_STORAGE_KEY, portalTheme } from '../theme/theme';
import type { AppStore } from './store';

/** Store and theme around the whole UI (the router goes inside). */
export function AppProviders({ store, children }: { store: AppStore; children: ReactNode }) {
  return (
    <ReduxProvider store={store}>
      <ThemeProvider
        theme={portalTheme()}
        defaultMode="system"
        modeStorageKey={COLOR_MODE_STORAGE_KEY}
        noSsr
      >
        <CssBaseline enableColorScheme />
        {children}
      </ThemeProvider>
    </ReduxProvider>
  );
}
