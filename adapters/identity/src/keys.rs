//! The signing keys: one for identity access tokens, another for core tokens (PRODUCT.md §1), and a third
//! for the identity service's keyed digests (typed codes, sign-up decoy ids), each either derived from
//! `PORTAL_SECRET_KEY` (so that every instance has the same keys) or generated once and kept in the
//! database's server secrets.

use domain::identity::DigestKey;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;

/// The shortest `PORTAL_SECRET_KEY` accepted, in characters.
pub const MIN_MASTER_SECRET_CHARS: usize = 32;
/// The length of a generated key, in bytes (the HS256 block).
pub const KEY_BYTES: usize = 32;
/// Names of the generated keys among the server secrets.
pub const ACCESS_KEY_SECRET_NAME: &str = "jwt_access_key";
pub const CORE_KEY_SECRET_NAME: &str = "jwt_core_key";
pub const DIGEST_KEY_SECRET_NAME: &str = "identity_digest_key";

const ACCESS_LABEL: &[u8] = b"devportal identity access token key v1";
const CORE_LABEL: &[u8] = b"devportal core token key v1";
const DIGEST_LABEL: &[u8] = b"devportal identity digest key v1";

/// Unusable key material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("PORTAL_SECRET_KEY must be at least {MIN_MASTER_SECRET_CHARS} characters long")]
    MasterTooShort,
    #[error("the stored signing key `{0}` is not {KEY_BYTES} or more bytes of hex")]
    BadStoredKey(&'static str),
    #[error("the two signing keys must differ")]
    SameKeys,
}

/// The two HS256 keys. Never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKeys {
    pub(crate) access: Vec<u8>,
    pub(crate) core: Vec<u8>,
}

impl fmt::Debug for SigningKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKeys(<redacted>)")
    }
}

fn derive(master: &[u8], label: &[u8]) -> Vec<u8> {
    // HMAC accepts a key of any length, so `new_from_slice` cannot fail; fall back to hashing just in case.
    match <Hmac<Sha256> as Mac>::new_from_slice(master) {
        Ok(mut mac) => {
            mac.update(label);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => {
            use sha2::Digest;
            Sha256::new()
                .chain_update(master)
                .chain_update(label)
                .finalize()
                .to_vec()
        }
    }
}

impl SigningKeys {
    /// Both keys derived from one master secret (`PORTAL_SECRET_KEY`) with HMAC-SHA256 and a label per kind.
    ///
    /// # Errors
    /// [`KeyError::MasterTooShort`].
    pub fn derive_from_master(master: &str) -> Result<Self, KeyError> {
        if master.chars().count() < MIN_MASTER_SECRET_CHARS {
            return Err(KeyError::MasterTooShort);
        }
        Ok(Self {
            access: derive(master.as_bytes(), ACCESS_LABEL),
            core: derive(master.as_bytes(), CORE_LABEL),
        })
    }

    /// Keys stored as hex (the server secrets [`ACCESS_KEY_SECRET_NAME`] and [`CORE_KEY_SECRET_NAME`]).
    ///
    /// # Errors
    /// [`KeyError::BadStoredKey`] for a key that is not long enough hex; [`KeyError::SameKeys`].
    pub fn from_hex(access_hex: &str, core_hex: &str) -> Result<Self, KeyError> {
        let decode = |text: &str, name: &'static str| {
            hex::decode(text.trim())
                .ok()
                .filter(|bytes| bytes.len() >= KEY_BYTES)
                .ok_or(KeyError::BadStoredKey(name))
        };
        let keys = Self {
            access: decode(access_hex, ACCESS_KEY_SECRET_NAME)?,
            core: decode(core_hex, CORE_KEY_SECRET_NAME)?,
        };
        if keys.access == keys.core {
            return Err(KeyError::SameKeys);
        }
        Ok(keys)
    }

    /// A fresh key as hex, from the operating system's generator.
    #[must_use]
    pub fn generate_hex() -> String {
        let mut bytes = [0u8; KEY_BYTES];
        crate::random::fill(&mut bytes);
        hex::encode(bytes)
    }
}

/// The key of the identity service's keyed digests derived from `PORTAL_SECRET_KEY` with its own label (so
/// it is neither signing key).
///
/// # Errors
/// [`KeyError::MasterTooShort`].
pub fn derive_digest_key(master: &str) -> Result<DigestKey, KeyError> {
    if master.chars().count() < MIN_MASTER_SECRET_CHARS {
        return Err(KeyError::MasterTooShort);
    }
    Ok(DigestKey::new(derive(master.as_bytes(), DIGEST_LABEL)))
}

/// The key of the identity service's keyed digests stored as hex (the server secret
/// [`DIGEST_KEY_SECRET_NAME`], made with [`SigningKeys::generate_hex`]).
///
/// # Errors
/// [`KeyError::BadStoredKey`] for a key that is not long enough hex.
pub fn digest_key_from_hex(text: &str) -> Result<DigestKey, KeyError> {
    hex::decode(text.trim())
        .ok()
        .filter(|bytes| bytes.len() >= KEY_BYTES)
        .map(DigestKey::new)
        .ok_or(KeyError::BadStoredKey(DIGEST_KEY_SECRET_NAME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_keys_are_stable_and_differ_per_kind() {
        let a = SigningKeys::derive_from_master("a master secret of at least 32 chars").unwrap();
        let b = SigningKeys::derive_from_master("a master secret of at least 32 chars").unwrap();
        assert_eq!(a, b);
        assert_ne!(a.access, a.core);
        assert_eq!(a.access.len(), 32);
    }

    #[test]
    fn the_digest_key_is_derived_apart_from_the_signing_keys() {
        let master = "a master secret of at least 32 chars";
        let keys = SigningKeys::derive_from_master(master).unwrap();
        let digest = derive_digest_key(master).unwrap();
        assert_eq!(digest, derive_digest_key(master).unwrap());
        assert_ne!(digest, DigestKey::new(keys.access.clone()));
        assert_ne!(digest, DigestKey::new(keys.core.clone()));
        assert_ne!(
            digest,
            derive_digest_key("another master secret of 32+ chars").unwrap()
        );
        assert_eq!(derive_digest_key("short"), Err(KeyError::MasterTooShort));
    }

    #[test]
    fn a_stored_digest_key_must_be_long_hex() {
        assert!(digest_key_from_hex(&SigningKeys::generate_hex()).is_ok());
        assert_eq!(
            digest_key_from_hex("abcd"),
            Err(KeyError::BadStoredKey(DIGEST_KEY_SECRET_NAME))
        );
    }

    #[test]
    fn a_short_master_secret_is_refused() {
        assert_eq!(
            SigningKeys::derive_from_master("short"),
            Err(KeyError::MasterTooShort)
        );
    }

    #[test]
    fn stored_keys_must_be_long_distinct_hex() {
        let (a, b) = (SigningKeys::generate_hex(), SigningKeys::generate_hex());
        assert!(SigningKeys::from_hex(&a, &b).is_ok());
        assert_eq!(SigningKeys::from_hex(&a, &a), Err(KeyError::SameKeys));
        assert!(matches!(
            SigningKeys::from_hex("abcd", &b),
            Err(KeyError::BadStoredKey(_))
        ));
    }

    #[test]
    fn keys_never_print() {
        let keys = SigningKeys::derive_from_master("a master secret of at least 32 chars").unwrap();
        assert_eq!(format!("{keys:?}"), "SigningKeys(<redacted>)");
    }
}
