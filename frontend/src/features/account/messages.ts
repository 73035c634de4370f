import type { AuthError } from '@supabase/auth-js';

import { passkeyCancelled, type PasskeyError } from '../auth';

/** What to tell the user of an identity-service refusal of a second-factor call. */
export function authErrorMessage(error: AuthError): string {
  switch (error.code) {
    case 'mfa_verification_failed':
      return 'That code is not right, or was already used. Wait for the next code and try again.';
    case 'mfa_challenge_expired':
      return 'That took too long. Enter the code your app shows now.';
    case 'insufficient_aal':
      return 'Confirm it’s you with your authenticator app first (sign in again with a code), then try again.';
    case 'mfa_factor_name_conflict':
      return 'You already have an authenticator with that name. Choose another name.';
    case 'too_many_enrolled_mfa_factors':
      return 'You have as many authenticators as allowed. Remove one first.';
    case 'mfa_verified_factor_exists':
      return 'You already have recovery codes. Make new ones instead.';
    case 'mfa_recovery_codes_sole_factor':
      return 'Add an authenticator app first: recovery codes stand in for it.';
    case 'mfa_factor_not_found':
      return 'There is nothing to confirm with: this account has no such second factor.';
    case 'webauthn_challenge_expired':
      return 'That took too long. Try again.';
    case 'webauthn_challenge_not_found':
    case 'webauthn_verification_failed':
      return 'The passkey could not be verified. Try again, or use another sign-in method.';
    case 'webauthn_credential_exists':
      return 'This passkey is already registered.';
    case 'too_many_passkeys':
      return 'You have as many passkeys as allowed. Remove one first.';
    case 'over_request_rate_limit':
      return 'Too many attempts. Please wait a few minutes and try again.';
    default:
      return error.message || 'Something went wrong. Please try again.';
  }
}

/** Why adding a passkey did not work: the browser's ceremony, or the identity service's refusal. */
export function ceremonyMessage(error: PasskeyError): string {
  if (passkeyCancelled(error) || error.code?.startsWith('ERROR_')) {
    return 'The passkey was not created: the prompt was closed, or this device cannot make one.';
  }
  return 'status' in error ? authErrorMessage(error as AuthError) : error.message;
}
