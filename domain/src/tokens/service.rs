//! The use cases of personal access tokens: create (from a session at the level of any security change,
//! e-mailing the owner), list and revoke one's own, list and revoke the tokens that act in an organization
//! (its admins), record expiries, and authenticate a request that presents one.

use chrono::{DateTime, Duration, Utc};
use std::sync::Arc;
use uuid::Uuid;

use super::format::{self, FormatError, Scopes};
use super::models::{
    AccessToken, DEFAULT_EXPIRY_DAYS, MAX_ACTIVE_TOKENS, MAX_EXPIRY_DAYS, MAX_NAME_CHARS, OwnedToken,
    TokenRead, TokenStatus,
};
use super::ports::AccessTokenRepository;
use crate::audit::{AuditAction, AuditEntry, AuditTarget, AuditTargetKind};
use crate::common::TokenUse;
use crate::common::secrets::digests_match;
use crate::common::secrets::random_uuid;
use crate::common::{Caller, Clock, FieldErrors, OrgId, RepoError, SecretGenerator};
use crate::identity::assurance::{Action, AssuranceRules, Refusal};
use crate::identity::core_token::{AccessTokenCheck, CheckedToken, StandingInOrg};
use crate::identity::{Authenticated, DigestKey};
use crate::mail::templates::{self, SecurityChange};
use crate::orgs::{ActingError, ActingMember, Door, MemberDirectory, OrgRepository, OrgRole, StandingSource};

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

/// What the access token use cases can fail with.
#[derive(Debug, thiserror::Error)]
pub enum AccessTokenError {
    /// 400: a field is wrong (`name`, `orgId`, `scopes`, `expiresInDays`).
    #[error("{0}")]
    Validation(FieldErrors),
    /// 403 `RECENT_SIGN_IN_NEEDED`: an account without a second factor creates tokens from a recent sign-in.
    #[error("Sign in again to create an access token: your last sign-in was more than 10 minutes ago.")]
    RecentSignInNeeded,
    /// 403 `MFA_REQUIRED`: the account has a second factor and the session has not passed it.
    #[error("Confirm it's you with your second factor to create an access token.")]
    SecondFactorNeeded,
    /// 404: no such token for this caller.
    #[error("This access token does not exist, or is not one you can manage.")]
    NotFound,
    /// 403: only an organization's admins manage the tokens that act in it.
    #[error("Only the organization's admins manage the access tokens that act in it.")]
    NotAdmin,
    /// 409: the token is revoked already.
    #[error("This access token was revoked already.")]
    AlreadyRevoked,
    #[error(transparent)]
    Acting(#[from] ActingError),
    #[error(transparent)]
    Repo(#[from] RepoError),
}

pub use crate::identity::core_token::TokenRefusal;

/// The access token use cases.
pub struct AccessTokenService {
    tokens: Arc<dyn AccessTokenRepository>,
    members: Arc<dyn MemberDirectory>,
    orgs: Arc<dyn OrgRepository>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    key: DigestKey,
    public_url: String,
    /// The assurance rule (its settings as the product requests' authentication has them).
    rules: AssuranceRules,
}

impl AccessTokenService {
    #[must_use]
    pub fn new(
        tokens: Arc<dyn AccessTokenRepository>,
        members: Arc<dyn MemberDirectory>,
        orgs: Arc<dyn OrgRepository>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        key: DigestKey,
        public_url: String,
    ) -> Self {
        Self {
            tokens,
            members,
            orgs,
            clock,
            secrets,
            key,
            public_url,
            rules: AssuranceRules::default(),
        }
    }

    /// The assurance rule with the deployment's settings (the same value the request authentication
    /// uses).
    #[must_use]
    pub const fn with_rules(mut self, rules: AssuranceRules) -> Self {
        self.rules = rules;
        self
    }

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

    /// The token's status now, by this service's clock (the HTTP layer never reads a clock of its own).
    #[must_use]
    pub fn status_of(&self, token: &AccessToken) -> TokenStatus {
        token.status(self.clock.now())
    }

    /// The caller's tokens, newest first.
    ///
    /// # Errors
    /// A store failure.
    pub async fn list_own(&self, caller: &Caller) -> Result<Vec<AccessToken>, AccessTokenError> {
        Ok(self.tokens.list_for_user(caller.user_id).await?)
    }

    /// Revokes one of the caller's tokens.
    ///
    /// # Errors
    /// [`AccessTokenError::NotFound`], [`AccessTokenError::AlreadyRevoked`], a store failure.
    pub async fn revoke_own(&self, caller: &Caller, id: Uuid) -> Result<AccessToken, AccessTokenError> {
        let token = self
            .tokens
            .find(id)
            .await?
            .filter(|t| t.user_id == caller.user_id)
            .ok_or(AccessTokenError::NotFound)?;
        self.revoke(caller, token).await
    }

    /// Revokes every token of the caller's that still works (after a recovery: "Revoke all"); answers how
    /// many. Each is revoked and audited as one revoked alone (one that another request revoked meanwhile
    /// is passed over).
    ///
    /// # Errors
    /// A store failure.
    pub async fn revoke_all_own(&self, caller: &Caller) -> Result<usize, AccessTokenError> {
        let now = self.clock.now();
        let mut revoked = 0;
        for token in self.tokens.list_for_user(caller.user_id).await? {
            if token.status(now) != TokenStatus::Active {
                continue;
            }
            match self.revoke(caller, token).await {
                Ok(_) => revoked += 1,
                Err(AccessTokenError::AlreadyRevoked) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(revoked)
    }

    /// The tokens that act in the member's organization (its admins only).
    ///
    /// # Errors
    /// [`AccessTokenError::NotAdmin`], a store failure.
    pub async fn list_in_org(&self, member: &ActingMember) -> Result<Vec<OwnedToken>, AccessTokenError> {
        if member.role() != OrgRole::Admin {
            return Err(AccessTokenError::NotAdmin);
        }
        Ok(self.tokens.list_for_org(member.org()).await?)
    }

    /// Revokes a token that acts in the member's organization (its admins only); a token of every
    /// organization of its owner stops everywhere.
    ///
    /// # Errors
    /// [`AccessTokenError::NotAdmin`], [`AccessTokenError::NotFound`], [`AccessTokenError::AlreadyRevoked`],
    /// a store failure.
    pub async fn revoke_in_org(
        &self,
        member: &ActingMember,
        id: Uuid,
    ) -> Result<AccessToken, AccessTokenError> {
        if member.role() != OrgRole::Admin {
            return Err(AccessTokenError::NotAdmin);
        }
        let token = self.tokens.find(id).await?.ok_or(AccessTokenError::NotFound)?;
        let acts_here = match token.org_id {
            Some(org) => org == member.org(),
            None => self.members.role_of(member.org(), token.user_id).await?.is_some(),
        };
        if !acts_here {
            return Err(AccessTokenError::NotFound);
        }
        self.revoke(member.caller(), token).await
    }

    async fn revoke(&self, by: &Caller, token: AccessToken) -> Result<AccessToken, AccessTokenError> {
        if token.revoked_at.is_some() {
            return Err(AccessTokenError::AlreadyRevoked);
        }
        let now = self.clock.now();
        let audit = self
            .entries(by, AuditAction::AccessTokenRevoked, &token, now)
            .await?;
        if !self.tokens.revoke(token.id, now, &audit).await? {
            return Err(AccessTokenError::AlreadyRevoked);
        }
        Ok(AccessToken {
            revoked_at: Some(now),
            ..token
        })
    }

    /// Records the expiry of every token that expired and was not recorded yet, each in the audit log of
    /// the organizations it could act in; answers how many.
    ///
    /// # Errors
    /// A store failure.
    pub async fn record_expirations(&self) -> Result<usize, AccessTokenError> {
        let now = self.clock.now();
        let mut recorded = 0;
        for token in self.tokens.expired_unrecorded(now).await? {
            let mut entries = Vec::new();
            for org in self.orgs_of(&token).await? {
                let mut entry =
                    AuditEntry::by_operator(self.secrets.as_ref(), AuditAction::AccessTokenExpired, now)
                        .in_org(org)
                        .on(target(&token));
                entry.actor_id = Some(token.user_id);
                entries.push(entry);
            }
            if self.tokens.record_expiry(token.id, &entries).await? {
                recorded += 1;
            }
        }
        Ok(recorded)
    }

    /// Authenticates a request that presents `bearer` (which starts with [`format::PREFIX`]), naming
    /// `org` when it does: the mistyped ones are refused before anything is read; then the stored digest
    /// must match, and the token must be neither revoked nor expired. A use is written down now and then
    /// ([`AccessToken::use_worth_recording`]).
    ///
    /// # Errors
    /// `Ok(Err(refusal))` when the token does not authenticate; a store failure.
    pub async fn authenticate(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<Result<TokenRead, TokenRefusal>, RepoError> {
        let presented = match format::read(bearer) {
            Ok(presented) => presented,
            Err(FormatError::Mistyped | FormatError::NotAnAccessToken) => {
                return Ok(Err(TokenRefusal::Mistyped));
            }
        };
        let Some(read) = self.tokens.read_for_request(presented.id, org).await? else {
            return Ok(Err(TokenRefusal::Unknown));
        };
        if !digests_match(&read.secret_digest, &self.key.access_token(bearer)) {
            return Ok(Err(TokenRefusal::Unknown));
        }
        let now = self.clock.now();
        if read.made_before_the_proof() {
            return Ok(Err(TokenRefusal::Revoked));
        }
        match read.token.status(now) {
            TokenStatus::Revoked => return Ok(Err(TokenRefusal::Revoked)),
            TokenStatus::Expired => return Ok(Err(TokenRefusal::Expired)),
            TokenStatus::Active => {}
        }
        if read.token.use_worth_recording(now, client_ip) {
            self.tokens
                .record_use(read.token.id, now, client_ip.map(str::to_owned))
                .await?;
        }
        Ok(Ok(read))
    }

    /// Audit entries about `token` by `caller`: one in each organization the token may act in.
    async fn entries(
        &self,
        caller: &Caller,
        action: AuditAction,
        token: &AccessToken,
        now: DateTime<Utc>,
    ) -> Result<Vec<AuditEntry>, RepoError> {
        Ok(self
            .orgs_of(token)
            .await?
            .into_iter()
            .map(|org| {
                AuditEntry::by(self.secrets.as_ref(), caller, action, now)
                    .in_org(org)
                    .on(target(token))
                    .change("scopes", serde_json::Value::Null, token.scopes.to_stored())
            })
            .collect())
    }

    /// The organizations `token` may act in now.
    async fn orgs_of(&self, token: &AccessToken) -> Result<Vec<OrgId>, RepoError> {
        Ok(match token.org_id {
            Some(org) => vec![org],
            None => self
                .orgs
                .list_for_user(token.user_id)
                .await?
                .into_iter()
                .map(|membership| membership.organization.id)
                .collect(),
        })
    }
}

fn target(token: &AccessToken) -> AuditTarget {
    AuditTarget::new(AuditTargetKind::AccessToken, token.id.to_string()).with_label(token.name.clone())
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

/// The product's authentication checks personal access tokens through this port (it does not know this
/// context): the token read as the request needs it.
#[async_trait::async_trait]
impl AccessTokenCheck for AccessTokenService {
    async fn check(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<Result<CheckedToken, TokenRefusal>, RepoError> {
        Ok(self.authenticate(bearer, org, client_ip).await?.map(|read| {
            let token = read.token;
            CheckedToken {
                used: TokenUse {
                    id: token.id,
                    name: token.name,
                    org: token.org_id,
                    scopes: token.scopes,
                },
                owner: token.user_id,
                owner_email: read.owner_email,
                made_with: token.made_with,
                protection: read.protection,
                org: read.org.map(|standing| StandingInOrg {
                    org: standing.org,
                    role: standing.role,
                    requires_two_factor: standing.requires_two_factor,
                    apps_revision: standing.apps_revision,
                }),
            }
        }))
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
