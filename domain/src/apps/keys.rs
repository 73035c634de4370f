//! App API keys (PRODUCT.md §4): shown once, 32 random bytes with a readable prefix, stored as SHA-256 only,
//! compared in constant time, never logged.

use std::fmt;

use crate::common::SecretGenerator;
use crate::common::secrets::{digest_secret, digests_match};

/// The readable prefix of every key, so that a leaked key is recognisable (secret scanners, logs).
pub const API_KEY_PREFIX: &str = "mk_";

/// Random bytes in a key (hex-encoded to 64 characters).
pub const API_KEY_BYTES: usize = 32;

/// A key in plain text, as handed to the developer exactly once. Its `Debug` form hides the secret, so it
/// cannot be logged by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct PlainApiKey(String);

impl PlainApiKey {
    /// The key itself, for the one response that shows it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The digest stored in place of the key.
    #[must_use]
    pub fn digest(&self) -> String {
        digest_secret(&self.0)
    }
}

impl fmt::Debug for PlainApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlainApiKey({API_KEY_PREFIX}…)")
    }
}

/// A freshly issued key with the digest to store.
#[derive(Debug, Clone)]
pub struct IssuedKey {
    pub plain: PlainApiKey,
    pub hash: String,
}

/// Issues a new key: `mk_` followed by 64 lowercase hex characters from 32 random bytes.
#[must_use]
pub fn issue_api_key(secrets: &dyn SecretGenerator) -> IssuedKey {
    let plain = PlainApiKey(format!("{API_KEY_PREFIX}{}", secrets.token_hex(API_KEY_BYTES)));
    let hash = plain.digest();
    IssuedKey { plain, hash }
}

/// Whether `candidate` has the shape of a key (prefix and 64 lowercase hex characters); callers check the
/// shape before any lookup so that junk never reaches the store.
#[must_use]
pub fn looks_like_api_key(candidate: &str) -> bool {
    candidate.strip_prefix(API_KEY_PREFIX).is_some_and(|rest| {
        rest.len() == API_KEY_BYTES * 2
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The digest to look a presented key up by, or `None` when it does not have the shape of a key.
#[must_use]
pub fn lookup_hash(candidate: &str) -> Option<String> {
    looks_like_api_key(candidate).then(|| digest_secret(candidate))
}

/// Whether a presented key matches the stored digest, compared in constant time.
#[must_use]
pub fn verify_api_key(candidate: &str, stored_hash: &str) -> bool {
    digests_match(&digest_secret(candidate), stored_hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RepeatingBytes;

    #[test]
    fn a_key_is_the_prefix_and_sixty_four_hex_characters() {
        let issued = issue_api_key(&RepeatingBytes(0xab));
        assert_eq!(issued.plain.expose(), format!("mk_{}", "ab".repeat(32)));
        assert!(looks_like_api_key(issued.plain.expose()));
    }

    #[test]
    fn only_the_sha256_digest_of_a_key_is_stored() {
        let issued = issue_api_key(&RepeatingBytes(1));
        assert_eq!(issued.hash, digest_secret(issued.plain.expose()));
        assert_ne!(issued.hash, issued.plain.expose());
        assert_eq!(issued.hash.len(), 64);
    }

    #[test]
    fn a_presented_key_is_verified_against_its_digest() {
        let issued = issue_api_key(&RepeatingBytes(7));
        assert!(verify_api_key(issued.plain.expose(), &issued.hash));
        assert!(!verify_api_key(&format!("mk_{}", "08".repeat(32)), &issued.hash));
    }

    #[test]
    fn the_debug_form_of_a_key_hides_the_secret() {
        let issued = issue_api_key(&RepeatingBytes(0xcd));
        let shown = format!("{issued:?}");
        assert!(!shown.contains("cdcdcd"), "{shown}");
    }

    #[test]
    fn junk_never_gets_a_lookup_hash() {
        for junk in [
            "",
            "mk_",
            "sk_abc",
            &format!("mk_{}", "AB".repeat(32)),
            &format!("mk_{}", "a".repeat(63)),
        ] {
            assert_eq!(lookup_hash(junk), None, "{junk:?}");
        }
        let good = format!("mk_{}", "0f".repeat(32));
        assert_eq!(lookup_hash(&good), Some(digest_secret(&good)));
    }
}
