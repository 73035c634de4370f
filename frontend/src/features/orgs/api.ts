import { baseApi, LIST } from '../../api/baseApi';
import type { InvitePreview, OrgList } from '../../api/types';
import type { Envelope, Organization, OrgProfileChange, OrgRole } from './types';

const unwrap = <T>(response: Envelope<T>): T => response.data;

/** The organization calls of spec §7. */
export const orgsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** The caller's organizations; the first call of a new user also makes their personal one. */
    listOrgs: build.query<OrgList, void>({
      query: () => '/api/orgs',
      providesTags: (list) => [
        { type: 'Org', id: LIST },
        ...(list?.data ?? []).map((org) => ({ type: 'Org' as const, id: org.id })),
      ],
    }),
    getOrg: build.query<Organization, string>({
      query: (orgId) => `/api/orgs/${encodeURIComponent(orgId)}`,
      transformResponse: unwrap<Organization>,
      providesTags: (_org, _error, orgId) => [{ type: 'Org', id: orgId }],
    }),
    createOrg: build.mutation<Organization, { name: string; contactEmail?: string }>({
      query: (body) => ({ url: '/api/orgs', method: 'POST', body }),
      transformResponse: unwrap<Organization>,
      invalidatesTags: [{ type: 'Org', id: LIST }],
    }),
    updateOrg: build.mutation<Organization, { orgId: string; change: OrgProfileChange }>({
      query: ({ orgId, change }) => ({
        url: `/api/orgs/${encodeURIComponent(orgId)}`,
        method: 'PUT',
        body: change,
      }),
      transformResponse: unwrap<Organization>,
      invalidatesTags: (_org, _error, { orgId }) => [
        { type: 'Org', id: orgId },
        { type: 'Org', id: LIST },
      ],
    }),
    /** Requires a second factor of every member, or stops requiring it (admins). */
    setTwoFactorRequirement: build.mutation<Organization, { orgId: string; required: boolean }>({
      query: ({ orgId, required }) => ({
        url: `/api/orgs/${encodeURIComponent(orgId)}/two-factor`,
        method: 'PUT',
        body: { requireTwoFactor: required },
      }),
      transformResponse: unwrap<Organization>,
      invalidatesTags: (_org, _error, { orgId }) => [
        { type: 'Org', id: orgId },
        { type: 'Org', id: LIST },
      ],
    }),
    deleteOrg: build.mutation<void, string>({
      query: (orgId) => ({ url: `/api/orgs/${encodeURIComponent(orgId)}`, method: 'DELETE' }),
      invalidatesTags: [{ type: 'Org', id: LIST }],
    }),
    inviteMember: build.mutation<void, { orgId: string; email: string; role: OrgRole }>({
      query: ({ orgId, email, role }) => ({
        url: `/api/orgs/${encodeURIComponent(orgId)}/members`,
        method: 'POST',
        body: { email, role },
      }),
      invalidatesTags: (_r, _e, { orgId }) => [{ type: 'Org', id: orgId }],
    }),
    changeRole: build.mutation<void, { orgId: string; memberId: string; role: OrgRole }>({
      query: ({ orgId, memberId, role }) => ({
        url: `/api/orgs/${encodeURIComponent(orgId)}/members/${encodeURIComponent(memberId)}`,
        method: 'PATCH',
        body: { role },
      }),
      invalidatesTags: (_r, _e, { orgId }) => [{ type: 'Org', id: orgId }],
    }),
    removeMember: build.mutation<void, { orgId: string; memberId: string; leaving?: boolean }>({
      query: ({ orgId, memberId }) => ({
        url: `/api/orgs/${encodeURIComponent(orgId)}/members/${encodeURIComponent(memberId)}`,
        method: 'DELETE',
      }),
      invalidatesTags: (_r, _e, { orgId, leaving }) =>
        leaving ? [{ type: 'Org', id: LIST }] : [{ type: 'Org', id: orgId }],
    }),
    resendInvite: build.mutation<void, { orgId: string; email: string }>({
      query: ({ orgId, email }) => ({
        url: `/api/orgs/${encodeURIComponent(orgId)}/invites/resend`,
        method: 'POST',
        body: { email },
      }),
      invalidatesTags: (_r, _e, { orgId }) => [{ type: 'Org', id: orgId }],
    }),
    rescindInvite: build.mutation<void, { orgId: string; email: string }>({
      query: ({ orgId, email }) => ({
        url: `/api/orgs/${encodeURIComponent(orgId)}/invites/rescind`,
        method: 'POST',
        body: { email },
      }),
      invalidatesTags: (_r, _e, { orgId }) => [{ type: 'Org', id: orgId }],
    }),
    /** What an invitation link shows before sign-in (no sign-in needed); never cached across tokens. */
    previewInvite: build.query<InvitePreview, string>({
      query: (token) => `/api/invites/${encodeURIComponent(token)}`,
      transformResponse: unwrap<InvitePreview>,
      keepUnusedDataFor: 0,
    }),
    acceptInvite: build.mutation<{ id: string; name: string }, string>({
      query: (token) => ({ url: `/api/orgs/accept/${encodeURIComponent(token)}`, method: 'POST' }),
      transformResponse: unwrap<{ id: string; name: string }>,
      invalidatesTags: [{ type: 'Org', id: LIST }],
    }),
  }),
});

export const {
  useListOrgsQuery,
  useGetOrgQuery,
  useCreateOrgMutation,
  useUpdateOrgMutation,
  useSetTwoFactorRequirementMutation,
  useDeleteOrgMutation,
  useInviteMemberMutation,
  useChangeRoleMutation,
  useRemoveMemberMutation,
  useResendInviteMutation,
  useRescindInviteMutation,
  useAcceptInviteMutation,
  usePreviewInviteQuery,
} = orgsApi;
