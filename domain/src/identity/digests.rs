//! Keyed digests of the identity service (PRODUCT.md §1): HMAC-SHA256 with a key of the server's, so that a
//! copy of the database alone is not enough to recover what they hide.
//!
//! - A typed six-digit code is stored as `HMAC(key, e-mail, code)`: with a plain digest, whoever reads the
//!   database could try the 10⁶ codes of an address offline in a moment.
//! - The id answered to a sign-up of an address that already has a confirmed account is
//!   `HMAC(key, e-mail)` shaped as a UUID: the same for every sign-up of that address (as the real id of an
//!   unconfirmed account is), and unknowable without the key, so the answer does not tell the two apart.
//!
//! Each use has its own label, so that one digest can never stand for another.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::fmt;

use crate::common::{EmailAddress, UserId};

const TYPED_CODE_LABEL: &str = "devportal typed code v1";
const DECOY_USER_ID_LABEL: &str = "devportal sign-up decoy user id v1";
const SEALING_KEY_LABEL: &str = "devportal factor secret sealing key v1";
const RECOVERY_CODE_LABEL: &str = "devportal recovery code v1";
const ACCESS_TOKEN_LABEL: &str = "devportal access token v1";
const WEBHOOK_SEALING_KEY_LABEL: &str = "devportal webhook secret sealing key v1";

/// The key of the identity service's keyed digests (derived from `PORTAL_SECRET_KEY`, or generated once and
/// kept with the server secrets). Never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct DigestKey(Vec<u8>);

impl fmt::Debug for DigestKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DigestKey(<redacted>)")
    }
}

impl DigestKey {
    #[must_use]
    pub const fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    /// `HMAC-SHA256(key, label ‖ 0 ‖ part ‖ 0 ‖ part …)`: the zero bytes keep `("ab", "c")` and `("a", "bc")`
    /// apart (e-mail addresses and codes hold no zero byte).
    fn mac(&self, label: &str, parts: &[&str]) -> [u8; 32] {
        let message = parts.iter().fold(label.as_bytes().to_vec(), |mut message, part| {
            message.push(0);
            message.extend_from_slice(part.as_bytes());
            message
        });
        match <Hmac<Sha256> as Mac>::new_from_slice(&self.0) {
            Ok(mut mac) => {
                mac.update(&message);
                mac.finalize().into_bytes().into()
            }
            // HMAC takes a key of any length, so this does not happen; stay keyed all the same.
            Err(_) => Sha256::new()
                .chain_update(&self.0)
                .chain_update(&message)
                .finalize()
                .into(),
        }
    }

    /// The stored digest of a typed six-digit code, bound to the e-mail it was sent to (codes repeat across
    /// addresses), lowercase hex.
    #[must_use]
    pub fn typed_code(&self, email: &EmailAddress, code: &str) -> String {
        hex::encode(self.mac(TYPED_CODE_LABEL, &[email.as_str(), code.trim()]))
    }

    /// The stored digest of a recovery code (in canonical form), bound to its set (the `recovery_code`
    /// factor), lowercase hex.
    #[must_use]
    pub fn recovery_code(&self, factor_id: uuid::Uuid, canonical_code: &str) -> String {
        hex::encode(self.mac(RECOVERY_CODE_LABEL, &[&factor_id.to_string(), canonical_code]))
    }

    /// The stored digest of a personal access token (the whole `dpt_…` text), lowercase hex.
    #[must_use]
    pub fn access_token(&self, token: &str) -> String {
        hex::encode(self.mac(ACCESS_TOKEN_LABEL, &[token]))
    }

    /// The key that seals second-factor secrets at rest (derived, so that it is never the digest key).
    #[must_use]
    pub fn sealing_key(&self) -> [u8; 32] {
        self.mac(SEALING_KEY_LABEL, &[])
    }

    /// The key that seals webhook signing secrets at rest (derived, its own label: never the factors' key).
    #[must_use]
    pub fn webhook_sealing_key(&self) -> [u8; 32] {
        self.mac(WEBHOOK_SEALING_KEY_LABEL, &[])
    }

    /// A stable id for an address that must not reveal its real account: a version-4-shaped UUID from
    /// `HMAC(key, e-mail)`.
    #[must_use]
    pub fn decoy_user_id(&self, email: &EmailAddress) -> UserId {
        let mac = self.mac(DECOY_USER_ID_LABEL, &[email.as_str()]);
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&mac[..16]);
        UserId(uuid::Builder::from_random_bytes(bytes).into_uuid())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::secrets::digest_secret;

    fn email(text: &str) -> EmailAddress {
        EmailAddress::parse(text).unwrap()
    }

    /// A [`UserId`] that looks like any other random (version 4) one.
    fn looks_random(id: &uuid::Uuid) -> bool {
        id.get_version_num() == 4 && id.get_variant() == uuid::Variant::RFC4122
    }

    fn key(byte: u8) -> DigestKey {
        DigestKey::new(vec![byte; 32])
    }

    #[test]
    fn a_typed_code_digest_depends_on_the_key_the_email_and_the_code() {
        let digest = key(1).typed_code(&email("a@x.io"), "123456");
        assert_eq!(digest.len(), 64);
        assert_eq!(digest, key(1).typed_code(&email("a@x.io"), " 123456 "));
        assert_ne!(digest, key(2).typed_code(&email("a@x.io"), "123456"));
        assert_ne!(digest, key(1).typed_code(&email("b@x.io"), "123456"));
        assert_ne!(digest, key(1).typed_code(&email("a@x.io"), "123457"));
    }

    #[test]
    fn without_the_key_the_stored_digest_of_a_code_cannot_be_recomputed() {
        // The digests an attacker with the database but not the key could compute.
        let stored = key(1).typed_code(&email("a@x.io"), "123456");
        for guess in [
            digest_secret("a@x.io\n123456"),
            digest_secret("a@x.io\u{0}123456"),
            digest_secret("123456"),
            DigestKey::new(Vec::new()).typed_code(&email("a@x.io"), "123456"),
        ] {
            assert_ne!(stored, guess);
        }
    }

    #[test]
    fn a_decoy_id_is_stable_per_address_and_key_and_looks_random() {
        let id = key(1).decoy_user_id(&email("a@x.io"));
        assert_eq!(id, key(1).decoy_user_id(&email("a@x.io")));
        assert_ne!(id, key(1).decoy_user_id(&email("b@x.io")));
        assert_ne!(id, key(2).decoy_user_id(&email("a@x.io")));
        assert!(looks_random(id.as_uuid()));
    }

    #[test]
    fn labels_keep_the_two_uses_apart() {
        let k = key(1);
        assert_ne!(
            hex::encode(k.mac(TYPED_CODE_LABEL, &["a@x.io"])),
            hex::encode(k.mac(DECOY_USER_ID_LABEL, &["a@x.io"]))
        );
        assert_ne!(k.mac("l", &["ab", "c"]), k.mac("l", &["a", "bc"]));
    }

    #[test]
    fn the_key_never_prints() {
        assert_eq!(format!("{:?}", key(9)), "DigestKey(<redacted>)");
    }
}
