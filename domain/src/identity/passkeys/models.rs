//! A passkey as stored, a WebAuthn ceremony in flight, and the rules of both (expiry, sign count, name).

use crate::common::code_enum;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use crate::common::{FieldErrors, UserId};

/// How long a ceremony may be finished (Supabase Auth's default).
pub const CHALLENGE_TTL_SECS: i64 = 300;
/// The longest passkey name (Supabase Auth's).
pub const MAX_NAME_CHARS: usize = 120;

/// A WebAuthn credential of an account: signs it in on its own (`aal2`) and counts as its second factor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passkey {
    pub id: Uuid,
    pub user_id: UserId,
    /// The credential id, base64url without padding (unique across accounts).
    pub credential_id: String,
    /// What the ceremony needs to verify a sign-in (the public key), opaque to the domain.
    pub public_key: String,
    /// The authenticator's signature counter as last seen (0 when it keeps none).
    pub sign_count: i64,
    pub friendly_name: Option<String>,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

impl Passkey {
    /// Its name as the owner gave it, else what it is.
    #[must_use]
    pub fn display_name(&self) -> &str {
        match self.friendly_name.as_deref().map(str::trim) {
            Some(name) if !name.is_empty() => name,
            _ => "Passkey",
        }
    }

    /// Whether an authenticator's counter `presented` may follow the stored one (WebAuthn §6.1.1): it must
    /// grow, unless the authenticator keeps no counter (both zero). A counter that stands still or goes
    /// back means the credential may have been cloned.
    #[must_use]
    pub fn sign_count_follows(&self, presented: u32) -> bool {
        let presented = i64::from(presented);
        (presented == 0 && self.sign_count == 0) || presented > self.sign_count
    }
}

code_enum! {
    /// Which ceremony a challenge belongs to.
    pub enum CeremonyKind: "Which ceremony a challenge belongs to." {
        Registration => "registration",
        Authentication => "authentication",
    }
}

/// A WebAuthn ceremony in flight: the state the server keeps between the options and the verification.
/// It works once and for [`CHALLENGE_TTL_SECS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebAuthnChallenge {
    pub id: Uuid,
    /// The account registering a passkey; `None` for a passkey sign-in (the account is not known yet).
    pub user_id: Option<UserId>,
    pub kind: CeremonyKind,
    /// The ceremony's state, opaque to the domain.
    pub state: String,
    pub created_at: DateTime<Utc>,
}

impl WebAuthnChallenge {
    #[must_use]
    pub fn expires_at(&self) -> DateTime<Utc> {
        self.created_at + Duration::seconds(CHALLENGE_TTL_SECS)
    }
}

/// The options of a ceremony for the browser, and the challenge that verifies its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct CeremonyOptions {
    pub challenge_id: Uuid,
    pub options: serde_json::Value,
    pub expires_at: DateTime<Utc>,
}

/// A passkey's new name: trimmed, not empty, at most [`MAX_NAME_CHARS`] characters.
///
/// # Errors
/// [`FieldErrors`] on `friendly_name`.
pub fn passkey_name(name: &str) -> Result<String, FieldErrors> {
    let name = name.trim();
    if name.is_empty() {
        return Err(FieldErrors::single("friendly_name", "friendly_name is required"));
    }
    if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(FieldErrors::single(
            "friendly_name",
            format!("friendly_name must be {MAX_NAME_CHARS} characters or less, on one line"),
        ));
    }
    Ok(name.to_owned())
}
