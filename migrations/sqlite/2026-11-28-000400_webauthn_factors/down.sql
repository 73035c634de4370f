ALTER TABLE factor_challenges DROP COLUMN webauthn_state;
ALTER TABLE factor_challenges DROP COLUMN webauthn_kind;
ALTER TABLE factors DROP COLUMN webauthn_sign_count;
ALTER TABLE factors DROP COLUMN webauthn_public_key;
ALTER TABLE factors DROP COLUMN webauthn_credential_id;
