DROP TABLE webauthn_challenges;
DROP TABLE passkeys;
