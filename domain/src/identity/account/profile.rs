//! The product API's view of the signed-in user (`GET /api/dev/auth/me`, `PUT /api/dev/auth/profile`):
//! the account behind a [`Caller`], whichever token kind authenticated it, and changes to its display name
//! and profile.

use serde_json::{Map, Value};

use super::AccountService;
use crate::common::Caller;
use crate::identity::errors::{FieldErrors, IdentityError};
use crate::identity::models::{MAX_DISPLAY_NAME_CHARS, display_name_of, merge_profile};
use crate::identity::sessions::UserRecord;

/// What `PUT /api/dev/auth/profile` may change.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ProfileChange<'a> {
    /// `Some(None)` or `Some(Some(""))` clears the display name; `None` leaves it.
    pub display_name: Option<Option<&'a str>>,
    /// Merged into the profile (a JSON object; a `null` value removes its key).
    pub profile: Option<&'a Value>,
}

impl AccountService {
    /// The caller's account with its linked identities.
    ///
    /// # Errors
    /// [`IdentityError::UserNotFound`] when the account is gone; a port failure.
    pub async fn account_of(&self, caller: &Caller) -> Result<UserRecord, IdentityError> {
        let account = self.issuer.account(caller.user_id).await?;
        self.issuer.user_record(account).await
    }

    /// Changes the caller's display name and/or profile. The display name is kept in the profile as
    /// `display_name` too (where the identity service's `user_metadata` shows it).
    ///
    /// # Errors
    /// [`IdentityError::Validation`] (`displayName`, `profile`); [`IdentityError::UserNotFound`]; a port
    /// failure.
    pub async fn update_profile(
        &self,
        caller: &Caller,
        change: ProfileChange<'_>,
    ) -> Result<UserRecord, IdentityError> {
        let account = self.issuer.account(caller.user_id).await?;
        let mut fields = FieldErrors::default();
        let mut merged = account.profile.clone();
        if let Some(profile) = change.profile {
            match merge_profile(&merged, profile) {
                Ok(profile) => merged = profile,
                Err(error) => fields.add("profile", error.to_string()),
            }
        }
        if let Some(name) = change.display_name {
            let name = name.map(str::trim).filter(|n| !n.is_empty());
            if name.is_some_and(|n| n.chars().count() > MAX_DISPLAY_NAME_CHARS) {
                fields.add(
                    "displayName",
                    format!("Display name must be at most {MAX_DISPLAY_NAME_CHARS} characters"),
                );
            } else {
                let mut entry = Map::new();
                entry.insert(
                    "display_name".into(),
                    name.map_or(Value::Null, |n| Value::String(n.to_owned())),
                );
                match merge_profile(&merged, &Value::Object(entry)) {
                    Ok(profile) => merged = profile,
                    Err(error) => fields.add("profile", error.to_string()),
                }
            }
        }
        if !fields.is_empty() {
            return Err(IdentityError::Validation(fields));
        }
        let now = self.issuer.now();
        let stored = self
            .accounts
            .update_profile(account.id, display_name_of(&merged), &merged, now)
            .await?;
        self.issuer.user_record(stored).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::EmailAddress;
    use crate::identity::test_support::{Mocks, account};
    use crate::testing::block_on;
    use serde_json::json;

    fn caller_of(account: &crate::identity::models::Account) -> Caller {
        Caller {
            user_id: account.id,
            email: EmailAddress::parse(account.email.as_str()).unwrap(),
            platform_role: None,
            origin: crate::common::ClientOrigin::default(),
        }
    }

    #[test]
    fn a_display_name_is_stored_in_the_profile_and_as_the_display_name() {
        let mut m = Mocks::new();
        let mut stored = account("dev@example.com", true);
        stored.profile = json!({"company": "Acme"});
        let caller = caller_of(&stored);
        let found = stored.clone();
        m.accounts
            .expect_get()
            .returning(move |_| Ok(Some(found.clone())));
        m.accounts
            .expect_update_profile()
            .withf(|_, name, profile, _| {
                name.as_deref() == Some("Ada")
                    && *profile == json!({"company": "Acme", "display_name": "Ada", "bio": "hi"})
            })
            .returning(move |_, name, profile, _| {
                let mut updated = stored.clone();
                updated.display_name = name;
                updated.profile = profile.clone();
                Ok(updated)
            });
        m.links.expect_list_for_user().returning(|_| Ok(vec![]));
        let change = json!({"bio": "hi"});
        let user = block_on(m.service().account.update_profile(
            &caller,
            ProfileChange {
                display_name: Some(Some(" Ada ")),
                profile: Some(&change),
            },
        ))
        .unwrap();
        assert_eq!(user.account.display_name.as_deref(), Some("Ada"));
    }

    #[test]
    fn a_too_long_display_name_or_a_non_object_profile_is_refused() {
        let mut m = Mocks::new();
        let stored = account("dev@example.com", true);
        let caller = caller_of(&stored);
        m.accounts
            .expect_get()
            .returning(move |_| Ok(Some(stored.clone())));
        m.accounts.expect_update_profile().never();
        let long = "x".repeat(101);
        let list = json!([1]);
        let error = block_on(m.service().account.update_profile(
            &caller,
            ProfileChange {
                display_name: Some(Some(&long)),
                profile: Some(&list),
            },
        ))
        .unwrap_err();
        let fields = error.fields().unwrap();
        assert!(fields.get("displayName").is_some() && fields.get("profile").is_some());
    }

    #[test]
    fn a_missing_account_is_user_not_found() {
        let mut m = Mocks::new();
        let stored = account("dev@example.com", true);
        let caller = caller_of(&stored);
        m.accounts.expect_get().returning(|_| Ok(None));
        assert!(matches!(
            block_on(m.service().account.account_of(&caller)),
            Err(IdentityError::UserNotFound)
        ));
    }
}
