-- A personal access token carries the proof of the session that made it (issue 47): the level it was made
-- at, when that session's first factor was given, the session (refresh-token family) that made it, and
-- the way in whose step raised that session to aal2. At every use the token is judged by that proof, as a
-- session is by its live head; a recovery that ends the family ends the token, and removing the raising
-- way in lowers it.
ALTER TABLE access_tokens ADD COLUMN made_aal TEXT NOT NULL DEFAULT 'aal1';
ALTER TABLE access_tokens ADD COLUMN made_first_factor_at BIGINT;
ALTER TABLE access_tokens ADD COLUMN made_by_family TEXT;
ALTER TABLE access_tokens ADD COLUMN made_raised_by TEXT;
-- Tokens made before this: a token of an account that was protected when it was made (a verified TOTP or
-- WebAuthn factor enrolled before the token, or a passkey older than it, still there; a factor's updated_at
-- moves with every use) was made at aal2, as the rule of
-- the day required; every other one at aal1. Its first factor counts as given when it was made.
UPDATE access_tokens SET made_first_factor_at = created_at;
UPDATE access_tokens SET made_aal = 'aal2'
WHERE EXISTS (
    SELECT 1 FROM factors f
    WHERE f.user_id = access_tokens.user_id AND f.status = 'verified'
      AND f.factor_type IN ('totp', 'webauthn') AND f.created_at <= access_tokens.created_at
) OR EXISTS (
    SELECT 1 FROM passkeys p
    WHERE p.user_id = access_tokens.user_id AND p.created_at <= access_tokens.created_at
);
CREATE INDEX access_tokens_family ON access_tokens(made_by_family) WHERE made_by_family IS NOT NULL;
CREATE INDEX access_tokens_raised_by ON access_tokens(made_raised_by) WHERE made_raised_by IS NOT NULL;
