/** The auth feature as other features use it (its public file: import nothing else of it). */
export { useClaimFirstAdminMutation, useGetAdminCheckQuery } from './api';
export { useAuthClient } from './AuthClientContext';
export { PasswordStrengthMeter } from './PasswordStrengthMeter';
export { loadPasswordStrength } from './strengthLoader';
export { passkeyCancelled, passkeyErrorMessage, type PasskeyError } from './passkeyMessages';
export { atPasskeyOrigin, passkeysElsewhere } from './passkeySite';
