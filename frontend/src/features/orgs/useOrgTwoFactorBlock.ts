import { useAppSelector } from '../../app/store';
import { selectBearer } from '../../session/authSlice';
import { tokenAal } from '../../session/storage';
import type { Organization } from './types';
import { useCurrentOrg } from './useCurrentOrg';

/**
 * The current organization when it requires a second factor (PRODUCT.md §1a) that this session has not
 * passed: the token says `aal1`, or the API refused a call with `ORG_MFA_REQUIRED` since the last token.
 */
export function useOrgTwoFactorBlock(): Organization | null {
  const { current } = useCurrentOrg();
  const refused = useAppSelector((state) => state.auth.orgMfaRequired ?? false);
  const bearer = useAppSelector(selectBearer);
  if (!current?.requireTwoFactor) return null;
  return refused || tokenAal(bearer) === 'aal1' ? current : null;
}
