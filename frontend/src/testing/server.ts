import { setupServer } from 'msw/node';

import { handlers } from './handlers';

/** Fake product API for component tests; `server.use(...)` overrides a handler in one test. */
export const server = setupServer(...handlers);
