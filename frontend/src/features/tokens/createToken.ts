import type { Store } from '@reduxjs/toolkit';

import { isApiErrorBody, isFetchBaseQueryError } from '../../api/errors';
import type { RootState } from '../../app/store';
import { selectBearer } from '../../session/authSlice';
import type { TokenDraft } from './draft';
import { MAX_NAME_LENGTH } from './format';

/** The value of the organization select that stands for every organization of the user. */
export const ALL_ORGS = '';

export interface OrgChoice {
  id: string;
  name: string;
}

export type Field = 'name' | 'orgId' | 'scopes' | 'expiresInDays';
export type FieldErrors = Partial<Record<Field, string>>;

/** Why the server asked the session to confirm it before making a token. */
export type Refusal = 'MFA_REQUIRED' | 'RECENT_SIGN_IN_NEEDED';

/** How long to wait for the session signed in again to reach the store. */
const NEW_CREDENTIAL_WAIT_MS = 10_000;

/** Resolves once the store holds another credential than `before` (or after a while, whatever it holds). */
export function newCredential(store: Store<RootState>, before: string | null): Promise<void> {
  return new Promise((resolve) => {
    if (selectBearer(store.getState()) !== before) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    };
    const timer = setTimeout(done, NEW_CREDENTIAL_WAIT_MS);
    const unsubscribe = store.subscribe(() => {
      if (selectBearer(store.getState()) !== before) done();
    });
  });
}

export function validate(draft: TokenDraft): FieldErrors {
  const errors: FieldErrors = {};
  const name = draft.name.trim();
  if (!name) errors.name = 'Name the token after what will use it.';
  else if (name.length > MAX_NAME_LENGTH)
    errors.name = `At most ${String(MAX_NAME_LENGTH)} characters.`;
  if (draft.scopes.length === 0) errors.scopes = 'Choose at least one scope.';
  return errors;
}

/** The server's field errors (400 `VALIDATION`), by the dialog's fields. */
export function serverFieldErrors(error: unknown): FieldErrors {
  if (!isFetchBaseQueryError(error) || !isApiErrorBody(error.data)) return {};
  const fields = error.data.fields ?? {};
  const found: FieldErrors = {};
  for (const field of ['name', 'orgId', 'scopes', 'expiresInDays'] as const) {
    if (fields[field]) found[field] = fields[field];
  }
  return found;
}
