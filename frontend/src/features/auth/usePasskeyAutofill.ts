import type { GoTrueClient } from '@supabase/auth-js';
import { useEffect } from 'react';

import { usePublicConfig } from '../publicConfig';
import { passkeyCancelled, passkeyErrorMessage } from './passkeyMessages';
import { passkeysElsewhere } from './passkeySite';
import type { AuthView } from './widget';

/**
 * Passkey autofill (WebAuthn conditional UI): while the sign-in form is open, the e-mail field offers the
 * device's passkeys for this site; choosing one signs in (auth-js saves the session). A failure other
 * than the person's own cancel goes to `onError` in words.
 */
export function usePasskeyAutofill(
  client: GoTrueClient | null,
  view: AuthView,
  onError: (text: string) => void,
): void {
  const elsewhere = passkeysElsewhere(usePublicConfig());
  useEffect(() => {
    // Not where passkeys work (a server at a loopback IP address serves them at `localhost`).
    if (view !== 'sign_in' || !client || elsewhere) return;
    const controller = new AbortController();
    const closed = () => controller.signal.aborted;
    void (async () => {
      // Not every browser (nor the test DOM) has WebAuthn or its conditional UI.
      const webauthn = (
        window as {
          PublicKeyCredential?: { isConditionalMediationAvailable?: () => Promise<boolean> };
        }
      ).PublicKeyCredential;
      const available = (await webauthn?.isConditionalMediationAvailable?.()) ?? false;
      if (!available || closed()) return;
      const { error } = await client.signInWithPasskey({
        options: { mediation: 'conditional', signal: controller.signal },
      });
      if (error && !closed() && !passkeyCancelled(error)) {
        onError(passkeyErrorMessage(error));
      }
    })();
    return () => {
      controller.abort();
    };
  }, [client, view, elsewhere, onError]);
}
