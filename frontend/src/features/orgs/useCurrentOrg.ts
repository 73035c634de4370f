import { useEffect } from 'react';

import { useAppDispatch, useAppSelector } from '../../app/store';
import { selectBearer } from '../../session/authSlice';
import { useListOrgsQuery } from './api';
import { orgSelected, selectCurrentOrgId } from '../../session/orgSlice';
import type { Organization, OrgRole } from './types';

export interface CurrentOrg {
  orgs: Organization[];
  /** The organization the screens work on (the stored choice, else the first). */
  current: Organization | null;
  /** The signed-in user's role in it. */
  role: OrgRole | null;
  isAdmin: boolean;
  /** This session's first list made the user's personal organization. */
  personalOrgCreated: boolean;
  isLoading: boolean;
  isError: boolean;
  refetch: () => void;
}

const EMPTY: Organization[] = [];

/** The user's organizations and the current one; keeps the stored choice valid. */
export function useCurrentOrg(): CurrentOrg {
  const dispatch = useAppDispatch();
  const bearer = useAppSelector(selectBearer);
  const storedId = useAppSelector(selectCurrentOrgId);
  const {
    data: list,
    isLoading,
    isFetching,
    isError,
    refetch,
  } = useListOrgsQuery(undefined, {
    skip: !bearer,
  });
  const orgs = list?.data ?? EMPTY;
  const current = orgs.find((org) => org.id === storedId) ?? orgs[0] ?? null;

  // Only a fresh list may overrule the stored choice: one just made may not be in the list being refetched.
  useEffect(() => {
    if (current && current.id !== storedId && !isFetching) dispatch(orgSelected(current.id));
  }, [current, storedId, isFetching, dispatch]);

  const role = current?.role ?? null;
  return {
    orgs,
    current,
    role,
    isAdmin: role === 'admin',
    personalOrgCreated: list?.personalOrgCreated ?? false,
    isLoading,
    isError,
    refetch: () => void refetch(),
  };
}
