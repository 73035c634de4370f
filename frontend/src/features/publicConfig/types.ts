/** What the server tells the browser before sign-in (`GET /api/public-config`), as its OpenAPI says. */
export type { PublicConfig } from '../../api/types';
