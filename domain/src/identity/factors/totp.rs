//! The TOTP side of a factor (RFC 6238: HMAC-SHA1, six digits, 30-second steps, one step of drift either
//! way, as Supabase Auth and every authenticator app use) and the sealing of its secret at rest.
//!
//! A secret is sealed with XChaCha20-Poly1305 under a key derived from the server's digest key, with the
//! factor's id as associated data: a copy of the database alone reveals no secret, and a sealed secret
//! moved to another factor's row does not open.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use totp_rs::{Algorithm, Builder, Secret, Totp};
use uuid::Uuid;

use crate::identity::digests::DigestKey;

/// Bytes of a new TOTP secret (160 bits, RFC 4226's recommendation).
pub const SECRET_BYTES: usize = 20;
/// Bytes of an XChaCha20 nonce.
pub const NONCE_BYTES: usize = 24;
/// The seconds of one TOTP step.
pub const STEP_SECS: u64 = 30;
const SEALED_PREFIX: &str = "v1:";

/// Why a TOTP secret could not be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TotpError {
    /// The sealed secret does not open with this server's key (another server's secret, or altered).
    #[error("the factor's secret does not open with this server's key")]
    Unsealable,
    /// The issuer or account name cannot go in an `otpauth://` URI.
    #[error("{0}")]
    Label(String),
}

/// A TOTP secret in the clear (only while it is used).
pub struct TotpSecret(Vec<u8>);

impl std::fmt::Debug for TotpSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TotpSecret(<redacted>)")
    }
}

impl TotpSecret {
    #[must_use]
    pub const fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    /// The secret as an authenticator app takes it typed: RFC 4648 base32 without padding.
    #[must_use]
    pub fn base32(&self) -> String {
        Secret::from(self.0.clone()).to_base32()
    }

    fn totp(&self, issuer: Option<&str>, account_name: &str) -> Result<Totp, TotpError> {
        Builder::new()
            .with_algorithm(Algorithm::SHA1)
            .with_digits(6)
            .with_skew(1)
            .with_step_duration(STEP_SECS)
            .with_secret(self.0.clone())
            .with_issuer(issuer)
            .with_account_name(account_name)
            .build()
            .map_err(|error| TotpError::Label(error.to_string()))
    }

    /// The `otpauth://totp/…` URI an authenticator app reads from the QR code.
    ///
    /// # Errors
    /// [`TotpError::Label`] when the issuer or the account name holds a character the URI cannot carry
    /// (a colon).
    pub fn uri(&self, issuer: &str, account_name: &str) -> Result<String, TotpError> {
        self.totp(Some(issuer), account_name)?
            .to_url()
            .map_err(|error| TotpError::Label(error.to_string()))
    }

    /// The step (Unix time ÷ 30) whose code `code` is, among the step of `unix_secs` and one on either
    /// side; `None` when it is none of them.
    #[must_use]
    pub fn matching_step(&self, code: &str, unix_secs: i64) -> Option<i64> {
        let time = u64::try_from(unix_secs).ok()?;
        let code = code.trim();
        if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let totp = self.totp(None, "").ok()?;
        totp.check(code, time).and_then(|step| i64::try_from(step).ok())
    }

    /// The code of the step of `unix_secs` (for tests and the operator's tooling).
    #[must_use]
    pub fn code_at(&self, unix_secs: i64) -> Option<String> {
        let time = u64::try_from(unix_secs).ok()?;
        Some(self.totp(None, "").ok()?.generate(time).to_string())
    }

    /// Seals the secret of factor `factor_id` with `nonce` ([`NONCE_BYTES`] random bytes).
    #[must_use]
    pub fn seal(&self, key: &DigestKey, factor_id: Uuid, nonce: &[u8]) -> String {
        let cipher = XChaCha20Poly1305::new(&key.sealing_key().into());
        let mut nonce_bytes = [0u8; NONCE_BYTES];
        for (slot, byte) in nonce_bytes.iter_mut().zip(nonce) {
            *slot = *byte;
        }
        let sealed = cipher
            .encrypt(
                XNonce::from_slice(&nonce_bytes),
                Payload {
                    msg: &self.0,
                    aad: factor_id.as_bytes(),
                },
            )
            // Encryption of a short message in memory does not fail.
            .unwrap_or_default();
        let mut out = nonce_bytes.to_vec();
        out.extend_from_slice(&sealed);
        format!("{SEALED_PREFIX}{}", hex::encode(out))
    }

    /// Opens a secret sealed by [`Self::seal`] for the same factor with the same key.
    ///
    /// # Errors
    /// [`TotpError::Unsealable`] for another key, another factor, or an altered value.
    pub fn open(key: &DigestKey, factor_id: Uuid, sealed: &str) -> Result<Self, TotpError> {
        let bytes = sealed
            .strip_prefix(SEALED_PREFIX)
            .and_then(|hex_text| hex::decode(hex_text).ok())
            .filter(|bytes| bytes.len() > NONCE_BYTES)
            .ok_or(TotpError::Unsealable)?;
        let (nonce, sealed) = bytes.split_at(NONCE_BYTES);
        let cipher = XChaCha20Poly1305::new(&key.sealing_key().into());
        cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: factor_id.as_bytes(),
                },
            )
            .map(Self)
            .map_err(|_| TotpError::Unsealable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> DigestKey {
        DigestKey::new(b"server key".to_vec())
    }

    #[test]
    fn rfc_6238_sha1_test_vectors_match() {
        // RFC 6238 appendix B, SHA-1, with six of the eight digits.
        let secret = TotpSecret::new(b"12345678901234567890".to_vec());
        assert_eq!(secret.code_at(59).as_deref(), Some("287082"));
        assert_eq!(secret.code_at(1_111_111_109).as_deref(), Some("081804"));
        assert_eq!(
            secret.matching_step("081804", 1_111_111_109),
            Some(1_111_111_109 / 30)
        );
    }

    #[test]
    fn one_step_of_drift_is_accepted_either_way_and_two_are_not() {
        let secret = TotpSecret::new(vec![9; SECRET_BYTES]);
        let now = 1_800_000_000;
        let code = secret.code_at(now).unwrap();
        assert_eq!(secret.matching_step(&code, now + 30), Some(now / 30));
        assert_eq!(secret.matching_step(&code, now - 30), Some(now / 30));
        assert_eq!(secret.matching_step(&code, now + 60), None);
        assert_eq!(secret.matching_step("12345", now), None);
        assert_eq!(secret.matching_step("abcdef", now), None);
    }

    #[test]
    fn a_sealed_secret_opens_only_for_its_factor_and_key() {
        let secret = TotpSecret::new(vec![3; SECRET_BYTES]);
        let factor = Uuid::new_v4();
        let sealed = secret.seal(&key(), factor, &[1; NONCE_BYTES]);
        assert!(!sealed.contains(&hex::encode(vec![3u8; SECRET_BYTES])));
        let opened = TotpSecret::open(&key(), factor, &sealed).unwrap();
        assert_eq!(opened.base32(), secret.base32());
        assert_eq!(
            TotpSecret::open(&key(), Uuid::new_v4(), &sealed).unwrap_err(),
            TotpError::Unsealable
        );
        let other = DigestKey::new(b"another server".to_vec());
        assert!(TotpSecret::open(&other, factor, &sealed).is_err());
        assert!(TotpSecret::open(&key(), factor, "v1:00").is_err());
    }

    #[test]
    fn the_uri_names_the_issuer_and_the_account() {
        let secret = TotpSecret::new(vec![5; SECRET_BYTES]);
        let uri = secret.uri("portal.test", "dev@example.com").unwrap();
        assert!(
            uri.starts_with("otpauth://totp/portal.test:dev%40example.com?"),
            "{uri}"
        );
        assert!(uri.contains(&format!("secret={}", secret.base32())), "{uri}");
        assert!(secret.uri("a:b", "dev@example.com").is_err());
    }
}
