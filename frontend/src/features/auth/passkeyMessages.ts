/** An identity-service refusal or a browser's WebAuthn error, as auth-js's passkey calls answer them. */
export interface PasskeyError {
  code?: string;
  name: string;
  message: string;
}

/** Whether a passkey ceremony ended because the prompt was closed or replaced (nothing to tell). */
export function passkeyCancelled(error: PasskeyError): boolean {
  return error.code === 'ERROR_CEREMONY_ABORTED' || error.name === 'NotAllowedError';
}

/** What to tell the user when signing in with a passkey did not work. */
export function passkeyErrorMessage(error: PasskeyError): string {
  if (passkeyCancelled(error)) return 'No passkey was chosen. Try again when you are ready.';
  switch (error.code) {
    case 'passkey_disabled':
      return 'Passkeys are not available on this server.';
    case 'webauthn_challenge_expired':
    case 'webauthn_challenge_not_found':
      return 'That took too long. Try again.';
    case 'webauthn_verification_failed':
      return 'That passkey is not registered here or could not be checked. Use another way to sign in.';
    case 'email_not_confirmed':
      return 'Confirm your e-mail address first: open the link we sent you.';
    case 'over_request_rate_limit':
      return 'Too many attempts. Please wait a few minutes and try again.';
    default:
      return error.message || 'Signing in with a passkey did not work. Please try again.';
  }
}
