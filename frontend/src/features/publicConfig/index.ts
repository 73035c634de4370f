export { publicConfigApi, useGetPublicConfigQuery } from './api';
export { DEFAULT_PUBLIC_CONFIG, normalizePublicConfig } from './defaults';
export type { PublicConfig } from './types';
export { usePublicConfig } from './usePublicConfig';
