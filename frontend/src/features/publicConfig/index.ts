export { publicConfigApi, useGetPublicConfigQuery } from './api';
export { companionInstallLink, DEFAULT_PUBLIC_CONFIG, normalizePublicConfig } from './defaults';
export type { PublicConfig } from './types';
export { usePublicConfig } from './usePublicConfig';
