import { RouterProvider, type DataRouter } from 'react-router';

import { AppProviders } from './AppProviders';
import type { AppStore } from './store';

export function App({ store, router }: { store: AppStore; router: DataRouter }) {
  return (
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
