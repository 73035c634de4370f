//! Standard Webhooks signatures: a secret is `whsec_` + the base64 of its key; a delivery carries
//! `webhook-id`, `webhook-timestamp` (seconds since the epoch) and `webhook-signature`, a space-separated
//! list of `v1,` + base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>")), one per valid secret (two while a
//! rotated secret overlaps the new one).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::common::SecretGenerator;

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
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.key) else {
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
    fn the_header_carries_one_signature_per_secret() {
        let old = WebhookSecret::generate(&RepeatingBytes(1));
        let new = WebhookSecret::generate(&RepeatingBytes(2));
        let header = signature_header([&new, &old], "msg_1", 10, "{}");
        let parts: Vec<&str> = header.split(' ').collect();
        assert_eq!(parts, [new.sign("msg_1", 10, "{}"), old.sign("msg_1", 10, "{}")]);
        assert_ne!(parts[0], parts[1]);
    }
}
