//! PKCE (RFC 7636): the browser's challenge and how a verifier is checked against it.

use sha2::{Digest, Sha256};

use super::error::OAuthError;
use crate::common::secrets::{digest_secret, digests_match};

/// How the browser derived its PKCE challenge from its verifier (RFC 7636).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeMethod {
    /// `BASE64URL(SHA-256(verifier))`, what supabase-js sends where Web Crypto is available.
    S256,
    /// The verifier itself: supabase-js falls back to it on pages without Web Crypto (plain HTTP).
    Plain,
}

impl ChallengeMethod {
    /// `s256` or `plain`, case-insensitively.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "s256" => Some(Self::S256),
            "plain" => Some(Self::Plain),
            _ => None,
        }
    }

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::S256 => "s256",
            Self::Plain => "plain",
        }
    }
}

/// A validated PKCE challenge: 43 to 128 characters of `[A-Za-z0-9._~-]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeChallenge {
    pub method: ChallengeMethod,
    pub value: String,
}

impl CodeChallenge {
    /// The challenge of an `/authorize` request. Both parameters are required: this service offers only
    /// the PKCE flow (no tokens in URLs).
    ///
    /// # Errors
    /// [`OAuthError::PkceRequired`] when either is missing; [`OAuthError::InvalidChallenge`] for an unknown
    /// method or a malformed challenge.
    pub fn parse(challenge: Option<&str>, method: Option<&str>) -> Result<Self, OAuthError> {
        let challenge = challenge.map(str::trim).filter(|c| !c.is_empty());
        let method = method.map(str::trim).filter(|m| !m.is_empty());
        let (Some(value), Some(method)) = (challenge, method) else {
            return Err(OAuthError::PkceRequired);
        };
        let method = ChallengeMethod::parse(method).ok_or(OAuthError::InvalidChallenge(
            "code challenge method not supported",
        ))?;
        if !(43..=128).contains(&value.len()) {
            return Err(OAuthError::InvalidChallenge(
                "code challenge has to be between 43 and 128 characters",
            ));
        }
        if !value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
        {
            return Err(OAuthError::InvalidChallenge(
                "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes",
            ));
        }
        Ok(Self {
            method,
            value: value.to_owned(),
        })
    }

    /// Whether the verifier belongs to this challenge (compared in constant time).
    #[must_use]
    pub fn matches(&self, verifier: &str) -> bool {
        let derived = match self.method {
            ChallengeMethod::S256 => s256_challenge(verifier),
            ChallengeMethod::Plain => verifier.to_owned(),
        };
        digests_match(&digest_secret(&derived), &digest_secret(&self.value))
    }
}

/// `BASE64URL-NOPAD(SHA-256(verifier))`, the S256 challenge of RFC 7636 §4.2.
#[must_use]
pub fn s256_challenge(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

pub(super) fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            let index = (n >> (18 - 6 * i)) & 0x3f;
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}
