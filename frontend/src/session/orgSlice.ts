import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** Local storage key of the current organization id (spec §3). */
export const CURRENT_ORG_KEY = 'currentOrgId';

function storedOrgId(): string | null {
  try {
    return localStorage.getItem(CURRENT_ORG_KEY);
  } catch {
    return null;
  }
}

export interface OrgState {
  /** The organization the screens work on; `null` until one is chosen. */
  currentOrgId: string | null;
}

const initialState = (): OrgState => ({ currentOrgId: storedOrgId() });

/** The organization chosen for this session; `persistOrgChoice` keeps it in local storage. */
export const orgSlice = createSlice({
  name: 'org',
  initialState,
  reducers: {
    orgSelected(state, action: PayloadAction<string | null>) {
      state.currentOrgId = action.payload;
    },
  },
  selectors: {
    selectCurrentOrgId: (state) => state.currentOrgId,
  },
});

export const { orgSelected } = orgSlice.actions;
export const { selectCurrentOrgId } = orgSlice.selectors;
