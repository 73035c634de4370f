-- WebAuthn second factors (Supabase Auth's `webauthn` factor, PRODUCT.md §1a). A verified `webauthn` factor
-- holds its credential: its id (base64url), what verifies an assertion (the public key, serialized by the
-- WebAuthn adapter) and the authenticator's signature counter as last seen (it must grow). All three stay
-- NULL for other factors and for a `webauthn` factor not yet registered.
ALTER TABLE factors ADD COLUMN webauthn_credential_id TEXT;
ALTER TABLE factors ADD COLUMN webauthn_public_key TEXT;
ALTER TABLE factors ADD COLUMN webauthn_sign_count BIGINT;

-- The WebAuthn ceremony a challenge of a `webauthn` factor started (`create` or `request`) and its state,
-- kept server-side until the challenge is verified or expires. NULL for TOTP challenges.
ALTER TABLE factor_challenges ADD COLUMN webauthn_kind TEXT;
ALTER TABLE factor_challenges ADD COLUMN webauthn_state TEXT;
