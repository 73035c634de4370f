//! An account of the built-in identity service: its profile (Supabase `user_metadata`) and display name, and
//! the identities it has at external providers.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

use crate::common::{EmailAddress, UserId};

/// An account of the built-in identity service.
///
/// `Debug` never prints the password hash.
#[derive(Clone, PartialEq)]
pub struct Account {
    pub id: UserId,
    /// Unique (compared lower-cased, as [`EmailAddress`] stores it).
    pub email: EmailAddress,
    /// `None` for accounts that only sign in with a provider or an e-mail link.
    pub password_hash: Option<String>,
    /// When the address became usable: at sign-up when no mailer is configured, else when proven.
    pub email_confirmed_at: Option<DateTime<Utc>>,
    /// When somebody first showed they own the address: a link or code from an e-mail was used, or a provider
    /// (or a hosted identity service) asserted a verified e-mail. Never set by the no-mailer confirmation at
    /// sign-up. Linking a provider identity and binding a platform role need it.
    pub email_proven_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    /// Taken from the profile's `display_name`, `full_name` or `name` (see [`display_name_of`]).
    pub display_name: Option<String>,
    /// The user's own metadata (Supabase `user_metadata`): always a JSON object.
    pub profile: Value,
}

impl Account {
    /// A new, unconfirmed account without a password.
    #[must_use]
    pub fn new(email: EmailAddress, now: DateTime<Utc>) -> Self {
        Self {
            id: UserId::new(),
            email,
            password_hash: None,
            email_confirmed_at: None,
            email_proven_at: None,
            created_at: now,
            updated_at: now,
            last_sign_in_at: None,
            display_name: None,
            profile: Value::Object(serde_json::Map::new()),
        }
    }

    #[must_use]
    pub const fn is_confirmed(&self) -> bool {
        self.email_confirmed_at.is_some()
    }

    /// Whether somebody showed they own the address (see `email_proven_at`).
    #[must_use]
    pub const fn is_proven(&self) -> bool {
        self.email_proven_at.is_some()
    }
}

impl fmt::Debug for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Account")
            .field("id", &self.id)
            .field("email", &self.email)
            .field(
                "password_hash",
                &self.password_hash.as_ref().map(|_| "<redacted>"),
            )
            .field("email_confirmed_at", &self.email_confirmed_at)
            .field("email_proven_at", &self.email_proven_at)
            .field("created_at", &self.created_at)
            .field("updated_at", &self.updated_at)
            .field("last_sign_in_at", &self.last_sign_in_at)
            .field("display_name", &self.display_name)
            .field("profile", &self.profile)
            .finish()
    }
}

/// Longest display name kept (characters).
pub const MAX_DISPLAY_NAME_CHARS: usize = 100;
/// Largest profile accepted, serialised (bytes).
pub const MAX_PROFILE_BYTES: usize = 16 * 1024;

/// The display name a profile carries: its `display_name`, else `full_name`, else `name` string, trimmed,
/// cut at 100 characters; `None` when none is a non-empty string.
#[must_use]
pub fn display_name_of(profile: &Value) -> Option<String> {
    ["display_name", "full_name", "name"].iter().find_map(|key| {
        let text = profile.get(key)?.as_str()?.trim();
        (!text.is_empty()).then(|| text.chars().take(MAX_DISPLAY_NAME_CHARS).collect())
    })
}

/// Why a profile change was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error("User data must be a JSON object")]
    NotAnObject,
    #[error("User data is too large")]
    TooLarge,
}

/// Merges a profile change into a profile the way Supabase Auth merges `data`: shallowly, key by key; a
/// `null` value removes the key.
///
/// # Errors
/// [`ProfileError::NotAnObject`] when the change is not a JSON object; [`ProfileError::TooLarge`] when the
/// result is larger than 16 KiB serialised.
pub fn merge_profile(existing: &Value, change: &Value) -> Result<Value, ProfileError> {
    let change = change.as_object().ok_or(ProfileError::NotAnObject)?;
    let mut merged = existing.as_object().cloned().unwrap_or_default();
    for (key, value) in change {
        if value.is_null() {
            merged.remove(key);
        } else {
            merged.insert(key.clone(), value.clone());
        }
    }
    let merged = Value::Object(merged);
    if merged.to_string().len() > MAX_PROFILE_BYTES {
        return Err(ProfileError::TooLarge);
    }
    Ok(merged)
}

/// An account's identity at an external OpenID Connect provider, found by `(issuer, subject)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalIdentity {
    /// The provider's issuer URL.
    pub issuer: String,
    /// The provider's `sub`.
    pub subject: String,
    /// The provider's short name (`google`, `apple`, `github`, `azure`).
    pub provider: String,
    pub user_id: UserId,
    pub email: Option<EmailAddress>,
    pub email_verified: bool,
    pub linked_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;
    use serde_json::json;

    #[test]
    fn an_accounts_debug_output_hides_the_password_hash() {
        let mut account = Account::new(EmailAddress::parse("a@b.co").unwrap(), noon());
        account.password_hash = Some("$argon2id$secret".into());
        let printed = format!("{account:?}");
        assert!(!printed.contains("argon2id"));
        assert!(printed.contains("<redacted>"));
    }

    #[test]
    fn a_new_account_is_unconfirmed_with_an_empty_profile() {
        let account = Account::new(EmailAddress::parse("a@b.co").unwrap(), noon());
        assert!(!account.is_confirmed() && !account.is_proven());
        assert_eq!(account.profile, json!({}));
    }

    #[test]
    fn profile_changes_merge_shallowly_and_null_removes_a_key() {
        let merged = merge_profile(&json!({"a": 1, "b": 2}), &json!({"b": null, "c": 3})).unwrap();
        assert_eq!(merged, json!({"a": 1, "c": 3}));
    }

    #[test]
    fn a_profile_change_must_be_a_small_object() {
        assert_eq!(
            merge_profile(&json!({}), &json!([1])),
            Err(ProfileError::NotAnObject)
        );
        let huge = json!({"bio": "x".repeat(MAX_PROFILE_BYTES)});
        assert_eq!(merge_profile(&json!({}), &huge), Err(ProfileError::TooLarge));
    }

    #[test]
    fn the_display_name_comes_from_display_name_then_full_name_then_name() {
        assert_eq!(
            display_name_of(&json!({"name": "N", "full_name": " Ada "})),
            Some("Ada".into())
        );
        assert_eq!(
            display_name_of(&json!({"display_name": "D", "name": "N"})),
            Some("D".into())
        );
        assert_eq!(display_name_of(&json!({"name": "  "})), None);
        let long = display_name_of(&json!({"name": "é".repeat(150)})).unwrap();
        assert_eq!(long.chars().count(), MAX_DISPLAY_NAME_CHARS);
    }
}
