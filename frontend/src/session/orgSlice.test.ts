import { afterEach, describe, expect, it } from 'vitest';

import { makeStore } from '../app/store';
import { CURRENT_ORG_KEY, orgSelected, orgSlice } from './orgSlice';

describe('the organization choice', () => {
  afterEach(() => {
    localStorage.clear();
  });

  it('is kept in local storage for the next visit, and forgotten when cleared', () => {
    const store = makeStore();
    store.dispatch(orgSelected('org-2'));
    expect(localStorage.getItem(CURRENT_ORG_KEY)).toBe('org-2');
    expect(makeStore().getState().org.currentOrgId).toBe('org-2');
    store.dispatch(orgSelected(null));
    expect(localStorage.getItem(CURRENT_ORG_KEY)).toBeNull();
  });

  it('is stored by a listener: the reducer itself touches no storage', () => {
    const next = orgSlice.reducer({ currentOrgId: null }, orgSelected('org-3'));
    expect(next.currentOrgId).toBe('org-3');
    expect(localStorage.getItem(CURRENT_ORG_KEY)).toBeNull();
  });
});
