//! Standard Webhooks signatures: a secret is `whsec_` + the base64 of its key; a delivery carries
//! `webhook-id`, `webhook-timestamp` (seconds since the epoch) and `webhook-signature`, a space-separated
//! list of `v1,` + base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>")), one per valid secret (two while a
//! rotated secret overlaps the new one).
//!
//! At rest a secret is sealed ([`SealedSecret`]) exactly as a second factor's TOTP secret is
//! (`identity::factors::totp`): XChaCha20-Poly1305 under a key derived from the server's digest key (its own
//! label), with the endpoint's id as associated data, so that a copy of the database alone cannot sign an
//! event, and a sealed secret moved to another endpoint's row does not open.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use chacha20poly1305::aead::{Aead, KeyInit as _, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

use super::ids::WebhookEndpointId;
use crate::common::SecretGenerator;
use crate::identity::DigestKey;

/// The prefix of every signing secret.
pub const SECRET_PREFIX: &str = "whsec_";
/// Bytes of key in a new secret (Standard Webhooks asks for 24 to 64).
pub const SECRET_BYTES: usize = 32;

/// A signing secret: `whsec_` + base64 of its key. Shown once, at creation or rotation.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret {
    text: String,
    key: Vec<u8>,
}

/// Why a stored or given secret is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a webhook signing secret (whsec_ followed by base64)")]
pub struct InvalidSecret;

impl WebhookSecret {
    /// A new random secret.
    #[must_use]
    pub fn generate(secrets: &dyn SecretGenerator) -> Self {
        let key = secrets.random_bytes(SECRET_BYTES);
        Self {
            text: format!("{SECRET_PREFIX}{}", STANDARD.encode(&key)),
            key,
        }
    }

    /// Reads a secret written by [`WebhookSecret::as_str`].
    ///
    /// # Errors
    /// [`InvalidSecret`] without the prefix, with bad base64 or a key shorter than 24 bytes.
    pub fn parse(text: &str) -> Result<Self, InvalidSecret> {
        let encoded = text.strip_prefix(SECRET_PREFIX).ok_or(InvalidSecret)?;
        let key = STANDARD.decode(encoded).map_err(|_| InvalidSecret)?;
        if key.len() < 24 {
            return Err(InvalidSecret);
        }
        Ok(Self {
            text: text.to_owned(),
            key,
        })
    }

    /// The secret as shown to the admin and stored (`whsec_…`).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// `v1,` + base64 of the HMAC-SHA256 of `<id>.<timestamp>.<body>` under this secret's key.
    #[must_use]
    pub fn sign(&self, id: &str, timestamp: i64, body: &str) -> String {
        // An HMAC takes a key of any length; this cannot fail.
        let Ok(mut mac) = <Hmac<Sha256> as Mac>::new_from_slice(&self.key) else {
            return String::new();
        };
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body.as_bytes());
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(…)")
    }
}

/// Bytes of an XChaCha20 nonce.
pub const NONCE_BYTES: usize = 24;
const SEALED_PREFIX: &str = "v1:";

/// Why a stored secret cannot sign.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the endpoint's signing secret does not open with this server's key")]
pub struct Unsealable;

/// A signing secret as stored: `v1:` + hex of the nonce and the sealed secret. Rows written before secrets
/// were sealed hold the secret itself (`whsec_…`); [`SealedSecret::open`] reads both, and the server seals
/// such rows when it starts (`WebhookDeliveryService::seal_stored_secrets`).
#[derive(Clone, PartialEq, Eq)]
pub struct SealedSecret(String);

impl std::fmt::Debug for SealedSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealedSecret(…)")
    }
}

impl SealedSecret {
    /// Seals `secret` of endpoint `endpoint` with `nonce` ([`NONCE_BYTES`] random bytes).
    #[must_use]
    pub fn seal(secret: &WebhookSecret, key: &DigestKey, endpoint: WebhookEndpointId, nonce: &[u8]) -> Self {
        let cipher = XChaCha20Poly1305::new(&key.webhook_sealing_key().into());
        let mut nonce_bytes = [0u8; NONCE_BYTES];
        for (slot, byte) in nonce_bytes.iter_mut().zip(nonce) {
            *slot = *byte;
        }
        let sealed = cipher
            .encrypt(
                XNonce::from_slice(&nonce_bytes),
                Payload {
                    msg: secret.as_str().as_bytes(),
                    aad: endpoint.0.as_bytes(),
                },
            )
            // Encryption of a short message in memory does not fail.
            .unwrap_or_default();
        let mut out = nonce_bytes.to_vec();
        out.extend_from_slice(&sealed);
        Self(format!("{SEALED_PREFIX}{}", hex::encode(out)))
    }

    /// A stored value as read from the database.
    #[must_use]
    pub const fn stored(text: String) -> Self {
        Self(text)
    }

    /// The value to store.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the value is a secret in the clear (a row written before secrets were sealed).
    #[must_use]
    pub fn is_plain(&self) -> bool {
        self.0.starts_with(SECRET_PREFIX)
    }

    /// Opens a secret sealed by [`Self::seal`] for the same endpoint with the same key, or reads a secret
    /// stored in the clear.
    ///
    /// # Errors
    /// [`Unsealable`] for another key, another endpoint, or an altered value.
    pub fn open(&self, key: &DigestKey, endpoint: WebhookEndpointId) -> Result<WebhookSecret, Unsealable> {
        if self.is_plain() {
            return WebhookSecret::parse(&self.0).map_err(|_| Unsealable);
        }
        let bytes = self
            .0
            .strip_prefix(SEALED_PREFIX)
            .and_then(|hex_text| hex::decode(hex_text).ok())
            .filter(|bytes| bytes.len() > NONCE_BYTES)
            .ok_or(Unsealable)?;
        let (nonce, sealed) = bytes.split_at(NONCE_BYTES);
        let cipher = XChaCha20Poly1305::new(&key.webhook_sealing_key().into());
        let opened = cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: endpoint.0.as_bytes(),
                },
            )
            .map_err(|_| Unsealable)?;
        let text = String::from_utf8(opened).map_err(|_| Unsealable)?;
        WebhookSecret::parse(&text).map_err(|_| Unsealable)
    }
}

/// The `webhook-signature` header: one signature per secret, separated by spaces.
#[must_use]
pub fn signature_header<'a>(
    secrets: impl IntoIterator<Item = &'a WebhookSecret>,
    id: &str,
    timestamp: i64,
    body: &str,
) -> String {
    secrets
        .into_iter()
        .map(|secret| secret.sign(id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RepeatingBytes;

    #[test]
    fn the_standard_webhooks_test_vector_signs_alike() {
        // The example of the Standard Webhooks specification's reference libraries.
        let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = r#"{"test": 2432232314}"#;
        assert_eq!(
            secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn a_generated_secret_parses_back_and_hides_in_debug() {
        let secret = WebhookSecret::generate(&RepeatingBytes(7));
        assert!(secret.as_str().starts_with("whsec_"));
        assert_eq!(WebhookSecret::parse(secret.as_str()).unwrap(), secret);
        assert!(!format!("{secret:?}").contains("whsec_"));
    }

    #[test]
    fn malformed_secrets_are_refused() {
        assert_eq!(
            WebhookSecret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
            Err(InvalidSecret)
        );
        assert_eq!(WebhookSecret::parse("whsec_***"), Err(InvalidSecret));
        assert_eq!(WebhookSecret::parse("whsec_c2hvcnQ="), Err(InvalidSecret));
    }

    #[test]
    fn a_sealed_secret_hides_the_secret_and_opens_only_for_its_endpoint_and_key() {
        let key = DigestKey::new(vec![9; 32]);
        let endpoint = WebhookEndpointId(uuid::Uuid::from_u128(1));
        let secret = WebhookSecret::generate(&RepeatingBytes(7));
        let sealed = SealedSecret::seal(&secret, &key, endpoint, &[4; NONCE_BYTES]);
        assert!(sealed.as_str().starts_with("v1:") && !sealed.is_plain());
        let key_text = secret.as_str().trim_start_matches(SECRET_PREFIX);
        assert!(!sealed.as_str().contains(key_text));
        assert!(!sealed.as_str().contains(&hex::encode(secret.as_str())));
        assert_eq!(sealed.open(&key, endpoint).unwrap(), secret);
        let other_endpoint = WebhookEndpointId(uuid::Uuid::from_u128(2));
        assert_eq!(sealed.open(&key, other_endpoint), Err(Unsealable));
        assert_eq!(
            sealed.open(&DigestKey::new(vec![8; 32]), endpoint),
            Err(Unsealable)
        );
        let mut altered = sealed.as_str().to_owned();
        let last = altered.pop().unwrap();
        altered.push(if last == '0' { '1' } else { '0' });
        assert_eq!(
            SealedSecret::stored(altered).open(&key, endpoint),
            Err(Unsealable)
        );
    }

    #[test]
    fn a_secret_stored_in_the_clear_still_opens_and_says_so() {
        let secret = WebhookSecret::generate(&RepeatingBytes(3));
        let stored = SealedSecret::stored(secret.as_str().to_owned());
        assert!(stored.is_plain());
        let endpoint = WebhookEndpointId(uuid::Uuid::from_u128(1));
        assert_eq!(
            stored.open(&DigestKey::new(vec![1; 32]), endpoint).unwrap(),
            secret
        );
    }

    #[test]
    fn the_header_carries_one_signature_per_secret() {
        let old = WebhookSecret::generate(&RepeatingBytes(1));
        let new = WebhookSecret::generate(&RepeatingBytes(2));
        let header = signature_header([&new, &old], "msg_1", 10, "{}");
        let parts: Vec<&str> = header.split(' ').collect();
        assert_eq!(parts, [new.sign("msg_1", 10, "{}"), old.sign("msg_1", 10, "{}")]);
        assert_ne!(parts[0], parts[1]);
    }
}
