import { setupListeners } from '@reduxjs/toolkit/query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from './app/App';
import { createAppRouter } from './app/router';
import { makeStore } from './app/store';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

const store = makeStore();
// refetchOnFocus / refetchOnReconnect for the queries that ask for them.
setupListeners(store.dispatch);

createRoot(container).render(
  <StrictMode>
    <App store={store} router={createAppRouter()} />
  </StrictMode>,
);
