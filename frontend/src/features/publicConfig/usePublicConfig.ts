import { useGetPublicConfigQuery } from './api';
import { DEFAULT_PUBLIC_CONFIG } from './defaults';
import type { PublicConfig } from './types';

/**
 * The server's public configuration; the defaults while it loads or when it
 * cannot be fetched, so that callers always have usable links.
 */
export function usePublicConfig(): PublicConfig {
  const { data } = useGetPublicConfigQuery();
  return data ?? DEFAULT_PUBLIC_CONFIG;
}
