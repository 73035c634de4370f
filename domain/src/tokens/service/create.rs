//! `POST /api/dev/tokens`: a token made from a session at the level of any security change, its owner
//! e-mailed, audited in every organization it may act in.

use chrono::Duration;

use super::{AccessTokenError, AccessTokenService};
use crate::audit::AuditAction;
use crate::common::FieldErrors;
use crate::common::OrgId;
use crate::common::secrets::random_uuid;
use crate::identity::Authenticated;
use crate::identity::assurance::{Action, Refusal};
use crate::mail::templates::{self, SecurityChange};
use crate::orgs::{ActingMember, Door, StandingSource};
use crate::tokens::format::{self, Scopes};
use crate::tokens::models::{
    AccessToken, DEFAULT_EXPIRY_DAYS, MAX_ACTIVE_TOKENS, MAX_EXPIRY_DAYS, MAX_NAME_CHARS,
};

/// What `POST /api/dev/tokens` asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewAccessToken {
    pub name: String,
    /// `None`: every organization the owner belongs to.
    pub org_id: Option<OrgId>,
    pub scopes: Vec<String>,
    /// `None`: [`DEFAULT_EXPIRY_DAYS`].
    pub expires_in_days: Option<i64>,
}

/// A token just made: the only time its secret is seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedToken {
    pub token: AccessToken,
    /// `dpt_…`, shown once.
    pub secret: String,
}

impl AccessTokenService {
    /// Creates a token for the caller of `session`: a new way in, so the session must be at the level of
    /// any security change ([`Action::AddWayIn`]); its organization (when one is named) must be one the
    /// caller acts in now. The owner is e-mailed; the creation is audited in every organization the
    /// token may act in.
    ///
    /// # Errors
    /// [`AccessTokenError::Validation`], [`AccessTokenError::RecentSignInNeeded`],
    /// [`AccessTokenError::SecondFactorNeeded`], [`AccessTokenError::Acting`], a store failure.
    pub async fn create(
        &self,
        session: &Authenticated,
        input: NewAccessToken,
    ) -> Result<CreatedToken, AccessTokenError> {
        let now = self.clock.now();
        let proof = session.proof();
        let ask = |action| self.rules.check(session.protection, proof, action, now);
        match ask(Action::AddWayIn) {
            Ok(()) => {}
            Err(Refusal::ReauthenticationNeeded) => return Err(AccessTokenError::RecentSignInNeeded),
            Err(_) => return Err(AccessTokenError::SecondFactorNeeded),
        }
        let caller = &session.caller;
        let (name, scopes, days) = validate(&input)?;
        if let Some(org) = input.org_id {
            let source = StandingSource::Directory(self.members.as_ref(), org);
            ActingMember::resolve(source, caller.clone(), session.second_factor(), Door::Act)
                .await?
                .ok_or_else(|| {
                    AccessTokenError::Validation(FieldErrors::single(
                        "orgId",
                        "You are not a member of this organization.",
                    ))
                })?;
        }
        // A token may act where two factors are required only when the session that makes it may: it
        // carries this session's proof, and the rule judges that proof at every use.
        if ask(Action::ActWhereTwoFactorsRequired).is_err() {
            let guarded = self
                .orgs
                .list_for_user(caller.user_id)
                .await?
                .into_iter()
                .map(|membership| membership.organization)
                .find(|org| org.require_two_factor && input.org_id.is_none_or(|named| named == org.id));
            if let Some(org) = guarded {
                return Err(AccessTokenError::Validation(FieldErrors::single(
                    "orgId",
                    format!(
                        "“{}” requires a second factor, and this session has not passed one: add a second \
                         factor and confirm it (or choose an organization that does not require one).",
                        org.name
                    ),
                )));
            }
        }
        let token = AccessToken {
            id: random_uuid(self.secrets.as_ref()),
            user_id: caller.user_id,
            org_id: input.org_id,
            name,
            scopes,
            created_at: now,
            expires_at: now + Duration::days(days),
            revoked_at: None,
            last_used_at: None,
            last_used_ip: None,
            made_with: proof,
        };
        let secret = format::write(token.id, &format::secret_from(&self.secrets.random_bytes(24)));
        let digest = self.key.access_token(&secret);
        let notice = templates::security_notice(
            &caller.email,
            SecurityChange::AccessTokenCreated(&token.name),
            now,
            &format!("{}/account/tokens", self.public_url.trim_end_matches('/')),
        );
        let audit = self
            .entries(caller, AuditAction::AccessTokenCreated, &token, now)
            .await?;
        if !self
            .tokens
            .insert(&token, &digest, MAX_ACTIVE_TOKENS, &notice, &audit)
            .await?
        {
            return Err(AccessTokenError::Validation(FieldErrors::single(
                "name",
                format!(
                    "You have {MAX_ACTIVE_TOKENS} active access tokens: revoke one before creating another."
                ),
            )));
        }
        Ok(CreatedToken { token, secret })
    }
}

/// The checked name, scopes and expiry in days.
fn validate(input: &NewAccessToken) -> Result<(String, Scopes, i64), AccessTokenError> {
    let mut errors = FieldErrors::new();
    let name = input.name.trim().to_owned();
    if name.is_empty() {
        errors.add(
            "name",
            "Give the token a name, such as the machine or CI job that uses it.",
        );
    } else if name.chars().count() > MAX_NAME_CHARS {
        errors.add(
            "name",
            format!("A token's name has at most {MAX_NAME_CHARS} characters."),
        );
    } else if name.chars().any(char::is_control) {
        errors.add("name", "A token's name cannot contain control characters.");
    }
    let scopes = Scopes::parse(input.scopes.iter().map(String::as_str))
        .map_err(|message| errors.add("scopes", message))
        .ok();
    let days = input.expires_in_days.unwrap_or(i64::from(DEFAULT_EXPIRY_DAYS));
    if !(1..=i64::from(MAX_EXPIRY_DAYS)).contains(&days) {
        errors.add(
            "expiresInDays",
            format!("A token expires after 1 to {MAX_EXPIRY_DAYS} days."),
        );
    }
    match scopes {
        Some(scopes) if errors.is_empty() => Ok((name, scopes, days)),
        _ => Err(AccessTokenError::Validation(errors)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_token_needs_a_name_known_scopes_and_an_expiry_within_a_year() {
        let good = NewAccessToken {
            name: " CI deploy ".into(),
            scopes: vec!["apps:read".into(), "apps:publish".into()],
            ..NewAccessToken::default()
        };
        let (name, scopes, days) = validate(&good).unwrap();
        assert_eq!((name.as_str(), days), ("CI deploy", 90));
        assert_eq!(scopes.to_stored(), "apps:read apps:publish");

        let bad = NewAccessToken {
            name: "   ".into(),
            scopes: vec!["apps:everything".into()],
            expires_in_days: Some(366),
            ..NewAccessToken::default()
        };
        let AccessTokenError::Validation(fields) = validate(&bad).unwrap_err() else {
            panic!("a validation error");
        };
        let named: Vec<_> = fields.iter().map(|(field, _)| field.to_owned()).collect();
        assert_eq!(named, ["name", "scopes", "expiresInDays"]);
        for days in [0, -1] {
            let never = NewAccessToken {
                expires_in_days: Some(days),
                ..good.clone()
            };
            assert!(validate(&never).is_err(), "{days}");
        }
        let no_scope = NewAccessToken {
            scopes: Vec::new(),
            ..good
        };
        assert!(validate(&no_scope).is_err());
    }
}
