import { baseApi, LIST } from '../../api/baseApi';
import type {
  AccessToken,
  AccessTokenList,
  CreateAccessTokenRequest,
  CreatedAccessToken,
  RevokedAllAccessTokens,
} from '../../api/types';

/** The tag of an organization's list of the tokens that act in it. */
const orgListTag = (orgId: string) => ({ type: 'AccessToken' as const, id: `org:${orgId}` });

/**
 * Personal access tokens: one's own (`/api/dev/tokens`) and, for an organization's admins, the tokens that
 * act in it (`/api/orgs/{orgId}/tokens`). A token made or revoked may show in both kinds of list: every
 * change reads all of them again.
 */
export const tokensApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** The caller's tokens, newest first (revoked and expired ones included). */
    listTokens: build.query<AccessToken[], void>({
      query: () => '/api/dev/tokens',
      transformResponse: (list: AccessTokenList) => list.tokens,
      providesTags: [{ type: 'AccessToken', id: LIST }],
    }),
    /** Makes a token: the answer carries its secret, shown this once. */
    createToken: build.mutation<CreatedAccessToken, CreateAccessTokenRequest>({
      query: (body) => ({ url: '/api/dev/tokens', method: 'POST', body }),
      invalidatesTags: ['AccessToken'],
    }),
    /** Revokes one of the caller's tokens: it stops working at once. */
    revokeToken: build.mutation<AccessToken, string>({
      query: (id) => ({ url: `/api/dev/tokens/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['AccessToken'],
    }),
    /**
     * Revokes every active token of the caller at once (a session only): answers how many it revoked.
     */
    revokeAllAccessTokens: build.mutation<number, void>({
      query: () => ({ url: '/api/dev/tokens/revoke-all', method: 'POST' }),
      transformResponse: (answer: RevokedAllAccessTokens) => answer.revoked,
      invalidatesTags: ['AccessToken'],
    }),
    /** The tokens that act in an organization, with their owners (admins only). */
    listOrgTokens: build.query<AccessToken[], string>({
      query: (orgId) => `/api/orgs/${encodeURIComponent(orgId)}/tokens`,
      transformResponse: (list: AccessTokenList) => list.tokens,
      providesTags: (_tokens, _error, orgId) => [orgListTag(orgId)],
    }),
    /** Revokes a token that acts in the organization (admins). */
    revokeOrgToken: build.mutation<AccessToken, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({
        url: `/api/orgs/${encodeURIComponent(orgId)}/tokens/${encodeURIComponent(id)}`,
        method: 'DELETE',
      }),
      invalidatesTags: ['AccessToken'],
    }),
  }),
});

export const {
  useListTokensQuery,
  useCreateTokenMutation,
  useRevokeTokenMutation,
  useRevokeAllAccessTokensMutation,
  useListOrgTokensQuery,
  useRevokeOrgTokenMutation,
} = tokensApi;
