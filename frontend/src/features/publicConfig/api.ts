import { baseApi } from '../../api/baseApi';
import { normalizePublicConfig } from './defaults';
import type { PublicConfig } from './types';

export const publicConfigApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getPublicConfig: build.query<PublicConfig, void>({
      query: () => '/api/public-config',
      transformResponse: (raw: unknown) => normalizePublicConfig(raw),
      providesTags: ['PublicConfig'],
      // Server configuration; it changes only when the server restarts.
      keepUnusedDataFor: 60 * 60,
    }),
  }),
});

export const { useGetPublicConfigQuery } = publicConfigApi;
