//! The randomness port, and the hashing of secrets that are stored only as digests (API keys, invitation
//! tokens, share tokens, one-time codes, refresh tokens).

use sha2::{Digest, Sha256};

/// A source of cryptographically secure randomness.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait SecretGenerator: Send + Sync {
    /// `len` bytes from a cryptographically secure generator. Never fails (an adapter whose generator
    /// is unavailable aborts the process rather than return weak bytes).
    fn random_bytes(&self, len: usize) -> Vec<u8>;

    /// A random token of `bytes` bytes, encoded as lowercase hexadecimal (so `2 * bytes` characters).
    fn token_hex(&self, bytes: usize) -> String {
        hex::encode(self.random_bytes(bytes))
    }
}

/// The SHA-256 digest of a secret, lowercase hexadecimal. Secrets with 128+ bits of entropy need no salt or
/// slow hash; passwords never go through this function (they use the `PasswordHasher` port).
#[must_use]
pub fn digest_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Compares two digests in time independent of where they differ.
#[must_use]
pub fn digests_match(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A v4 UUID from 16 bytes of the randomness port.
#[must_use]
pub fn random_uuid(secrets: &dyn SecretGenerator) -> uuid::Uuid {
    let mut bytes = [0u8; 16];
    for (slot, byte) in bytes.iter_mut().zip(secrets.random_bytes(16)) {
        *slot = byte;
    }
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_is_sha256_in_lowercase_hex() {
        assert_eq!(
            digest_secret("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn equal_digests_match_and_different_ones_do_not() {
        let d = digest_secret("key");
        assert!(digests_match(&d, &digest_secret("key")));
        assert!(!digests_match(&d, &digest_secret("other")));
        assert!(!digests_match(&d, "short"));
    }

    #[test]
    fn a_hex_token_has_two_characters_per_byte() {
        assert_eq!(crate::testing::RepeatingBytes(0xab).token_hex(3), "ababab");
    }
}
