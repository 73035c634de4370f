//! The product's own session: `POST /api/auth/exchange-token` turns an identity access token into a core
//! token, and every product API request is authenticated from its bearer (PRODUCT.md §1).
//!
//! The product API accepts a core token or, as the specification's fallback, a valid identity access token;
//! nothing else: refresh tokens, invitation and share tokens, e-mail links and API keys are opaque strings
//! that neither verification accepts.

mod access_tokens;
pub mod hosted;

pub use access_tokens::{AccessTokenCheck, CheckedToken, StandingInOrg, TokenRefusal};

use chrono::{DateTime, TimeZone, Utc};
use std::sync::Arc;
use uuid::Uuid;

use crate::common::{
    ACCESS_TOKEN_PREFIX, Caller, Clock, EmailAddress, OrgId, PlatformRole, RepoError, UserId,
};
use crate::identity::assurance::{
    Action, AssuranceRules, Protection, Refusal, SessionProof, passed_second_factor,
};
use crate::identity::core_token::hosted::{HostedAccountError, HostedAccounts};
use crate::identity::models::Aal;
use crate::identity::ports::{PlatformAdminRepository, RefreshTokenRepository, TokenSigner};
use crate::identity::sessions::tokens::{AccessTokenClaims, CoreTokenClaims, TokenError};
use crate::membership::{MembershipRead, SecondFactor};

/// A signed core token and when it expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreToken {
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

/// What authenticating a product request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// 401: no token, or not a valid core or identity access token; the source says whether it expired.
    #[error("Invalid or expired token")]
    Unauthenticated(#[source] TokenError),
    /// 500: the core token could not be signed.
    #[error("could not sign the core token")]
    Signing(#[source] TokenError),
    /// 403 `MFA_REQUIRED`: the account has a verified second factor and the session has not passed it
    /// (`aal1`); the client should challenge the factor, then exchange the raised session's token again.
    #[error("Confirm it's you with your second factor to continue.")]
    MfaRequired,
    /// 409: a hosted user whose e-mail belongs to another local account (see [`HostedAccounts`]).
    #[error("This e-mail address belongs to another account on this server.")]
    EmailInUse { user: UserId },
    /// 401: a personal access token that does not authenticate (the refusal says why: mistyped, unknown,
    /// revoked, expired).
    #[error("{0}")]
    AccessToken(TokenRefusal),
    /// 403: a personal access token bound to another organization than the one the request names.
    #[error("This access token works only in its own organization.")]
    TokenOutsideItsOrg,
    /// 500: the platform-admin or account store failed.
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl From<HostedAccountError> for AuthError {
    fn from(error: HostedAccountError) -> Self {
        match error {
            HostedAccountError::EmailInUse { user } => Self::EmailInUse { user },
            HostedAccountError::Repo(cause) => Self::Repo(cause),
        }
    }
}

impl AuthError {
    /// Whether the token was well signed but expired (the client should refresh and exchange again).
    #[must_use]
    pub fn is_expired(&self) -> bool {
        matches!(self, Self::Unauthenticated(TokenError::Expired))
    }
}

/// Exchanges identity tokens for core tokens and authenticates product requests.
pub struct CoreTokenService {
    signer: Arc<dyn TokenSigner>,
    admins: Arc<dyn PlatformAdminRepository>,
    clock: Arc<dyn Clock>,
    issuer: String,
    /// The built-in identity service's sessions: an access token whose session was signed out or revoked
    /// cannot be exchanged. `None` for a hosted identity service (its sessions are not ours to see).
    sessions: Option<Arc<dyn RefreshTokenRepository>>,
    /// With a hosted identity service: makes the local account of a hosted user on first use.
    hosted: Option<HostedAccounts>,
    /// The assurance rule (with whether platform staff need an `aal2` session, `PORTAL_STAFF_MFA`).
    rules: AssuranceRules,
    /// Personal access tokens (`None`: bearers starting with `dpt_` are refused like any unknown token).
    access_tokens: Option<Arc<dyn AccessTokenCheck>>,
}

/// A product caller and the proof of the credential the bearer presented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub caller: Caller,
    /// What the credential proves: a session's live head (built-in), a hosted token's own claims, or the
    /// proof a personal access token recorded from the session that made it.
    pub proof: SessionProof,
    /// The built-in identity service's session (refresh-token family) the bearer belongs to; `None` with a
    /// hosted identity service and for a personal access token.
    pub session_id: Option<Uuid>,
    /// What protects the account: known with the built-in identity service (read with the session),
    /// `None` with a hosted one (only its token's `aal` speaks for it).
    pub protection: Option<Protection>,
    /// The platform role bound to the account that this session may not use yet (staff use cases need a
    /// session that passed a second factor): `caller.platform_role` is `None` meanwhile, so no staff use
    /// case is reached through any route.
    pub withheld_role: Option<PlatformRole>,
}

impl Authenticated {
    /// What the credential proves (the same at every moment: recency is the rule's to judge).
    #[must_use]
    pub const fn proof(&self) -> SessionProof {
        self.proof
    }

    /// The credential's level.
    #[must_use]
    pub const fn aal(&self) -> Aal {
        self.proof.aal
    }

    /// Whether the credential passed a second factor, for an organization that requires one: an `aal2`
    /// proof of an account whose factor is still there (built-in), or a token claiming `aal2` (hosted:
    /// the project's `aal` is honoured as the built-in one is). Costs no read.
    #[must_use]
    pub fn second_factor(&self) -> SecondFactor {
        if passed_second_factor(self.protection, self.proof.aal) {
            SecondFactor::Passed
        } else {
            SecondFactor::NotPassed
        }
    }
}

impl CoreTokenService {
    /// `issuer` is the `iss` of core tokens (the portal's public URL).
    #[must_use]
    pub fn new(
        signer: Arc<dyn TokenSigner>,
        admins: Arc<dyn PlatformAdminRepository>,
        clock: Arc<dyn Clock>,
        issuer: String,
    ) -> Self {
        Self {
            signer,
            admins,
            clock,
            issuer,
            sessions: None,
            hosted: None,
            rules: AssuranceRules::default(),
            access_tokens: None,
        }
    }

    /// Whether platform staff need an `aal2` session for the staff API (default: yes).
    #[must_use]
    pub const fn with_staff_mfa(mut self, required: bool) -> Self {
        self.rules.staff_two_factor = required;
        self
    }

    /// The assurance rule with the deployment's settings (the access token service holds the same).
    #[must_use]
    pub const fn with_rules(mut self, rules: AssuranceRules) -> Self {
        self.rules = rules;
        self
    }

    /// With a hosted identity service: every verified access token (exchanged, or used directly as the
    /// fallback) gets its local account made or brought up to date first. Hosted sessions are not ours to
    /// see, so a hosted access token is trusted until its `exp`.
    #[must_use]
    pub fn with_hosted_accounts(mut self, hosted: HostedAccounts) -> Self {
        self.hosted = Some(hosted);
        self
    }

    /// Accepts personal access tokens (`dpt_…`) as bearers of product requests.
    #[must_use]
    pub fn with_access_tokens(mut self, tokens: Arc<dyn AccessTokenCheck>) -> Self {
        self.access_tokens = Some(tokens);
        self
    }

    /// Authenticates a product request's bearer — a core token, an identity access token, or a personal
    /// access token — for a request naming the organization `org` when it does, from the client address
    /// `client_ip` (a token's last use is recorded with it). See [`Self::authenticate_in_org`].
    ///
    /// # Errors
    /// As [`Self::authenticate_at_level`]; [`AuthError::AccessToken`] and
    /// [`AuthError::TokenOutsideItsOrg`] for a personal access token.
    pub async fn authenticate_request(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<(Authenticated, Option<MembershipRead>), AuthError> {
        let bearer = bearer.trim();
        if bearer.starts_with(ACCESS_TOKEN_PREFIX) {
            return self.authenticate_access_token(bearer, org, client_ip).await;
        }
        self.authenticate_in(bearer, org).await
    }

    /// A personal access token acts as its owner with the proof it recorded when it was made: the same
    /// rule as a session's decides what that proof may do against the owner's protection now (a token
    /// made by a password-only session of an account that has a second factor since is held back, as
    /// that session would be); never a platform role (staff use cases never take a token); the owner's
    /// membership is read with it.
    async fn authenticate_access_token(
        &self,
        bearer: &str,
        org: Option<OrgId>,
        client_ip: Option<&str>,
    ) -> Result<(Authenticated, Option<MembershipRead>), AuthError> {
        let Some(tokens) = &self.access_tokens else {
            return Err(AuthError::AccessToken(TokenRefusal::Unknown));
        };
        let read = tokens
            .check(bearer, org, client_ip)
            .await?
            .map_err(AuthError::AccessToken)?;
        if let (Some(bound), Some(named)) = (read.used.org, org)
            && bound != named
        {
            return Err(AuthError::TokenOutsideItsOrg);
        }
        // A hosted account's factors are the project's, not known here (its local row has none): the
        // token's recorded level speaks for itself, as a hosted session's `aal` does.
        let protection = self.hosted.is_none().then_some(read.protection);
        let (platform_role, withheld_role) = self
            .admit(protection, read.made_with, None)
            .map_err(|_| AuthError::AccessToken(TokenRefusal::BelowAccountLevel))?;
        let membership = read.org.map(|standing| {
            MembershipRead::new(
                read.owner,
                standing.org,
                standing.role,
                standing.requires_two_factor,
                standing.apps_revision,
            )
        });
        let authenticated = Authenticated {
            caller: Caller {
                user_id: read.owner,
                email: read.owner_email,
                platform_role,
                origin: crate::common::ClientOrigin {
                    via_token: Some(read.used),
                    ..crate::common::ClientOrigin::default()
                },
            },
            proof: read.made_with,
            session_id: None,
            protection,
            withheld_role,
        };
        Ok((authenticated, membership))
    }

    /// What the assurance rule lets a credential proving `proof`, of an account protected as `protection`
    /// says, do with the platform role `role` bound to its account: refused below the product
    /// ([`Action::UseProduct`]), and the role carried only when staff use cases are allowed
    /// ([`Action::UseStaff`]; otherwise it is withheld). One decision for sessions and access tokens.
    fn admit(
        &self,
        protection: Option<Protection>,
        proof: SessionProof,
        role: Option<PlatformRole>,
    ) -> Result<(Option<PlatformRole>, Option<PlatformRole>), Refusal> {
        let now = self.clock.now();
        self.rules.check(protection, proof, Action::UseProduct, now)?;
        let staff_allowed = self.rules.check(protection, proof, Action::UseStaff, now).is_ok();
        Ok(match role {
            Some(role) if !staff_allowed => (None, Some(role)),
            role => (role, None),
        })
    }

    /// Refuses to exchange an access token whose session (refresh-token family) is no longer live.
    #[must_use]
    pub fn with_sessions(mut self, sessions: Arc<dyn RefreshTokenRepository>) -> Self {
        self.sessions = Some(sessions);
        self
    }

    /// Verifies an identity access token (built-in or hosted) and signs a core token for the same user,
    /// valid one hour but never longer than the access token. A core token cannot be exchanged for
    /// another, and neither can the access token of a session that was signed out, revoked, or has expired.
    ///
    /// # Errors
    /// [`AuthError::Unauthenticated`] when the identity token is not valid or its session is over;
    /// [`AuthError::EmailInUse`] for a hosted user whose e-mail another local account has;
    /// [`AuthError::Signing`]; [`AuthError::Repo`].
    pub async fn exchange(&self, identity_access_token: &str) -> Result<CoreToken, AuthError> {
        let now = self.clock.now();
        let claims = self
            .signer
            .verify_access(identity_access_token.trim(), now)
            .await
            .and_then(|claims| claims.check(now).map(|()| claims))
            .map_err(AuthError::Unauthenticated)?;
        let Some(session) = self.session_of(&claims, now, None).await? else {
            return Err(AuthError::Unauthenticated(TokenError::Invalid));
        };
        if let Some(hosted) = &self.hosted {
            hosted.ensure(&claims).await?;
        }
        let mut core = CoreTokenClaims::issue(claims.sub, claims.email.clone(), &self.issuer, now);
        core.exp = core.exp.min(claims.exp);
        core.aal = session.aal(&claims).as_str().to_owned();
        core.auth_time = session.first_factor_at(&claims).map(|at| at.timestamp());
        if self.sessions.is_some() {
            core.sid = Some(claims.session_id);
        }
        let token = self.signer.sign_core(&core).await.map_err(AuthError::Signing)?;
        let expires_at = Utc.timestamp_opt(core.exp, 0).single().unwrap_or(now);
        Ok(CoreToken { token, expires_at })
    }

    /// Resolves the caller of a product request from its bearer token: a core token, else an identity
    /// access token. The platform role is the one bound to the account id: never read from the e-mail, so
    /// a role waiting for an address, or bound to an account that had the address before, is not the
    /// caller's.
    ///
    /// # Errors
    /// [`AuthError::Unauthenticated`] (expired when either kind said so); [`AuthError::EmailInUse`] as
    /// [`Self::exchange`]; [`AuthError::Repo`].
    pub async fn authenticate(&self, bearer: &str) -> Result<Caller, AuthError> {
        self.authenticate_at_level(bearer).await.map(|found| found.caller)
    }

    /// As [`Self::authenticate`], with the session's assurance level: the built-in service's live session
    /// says it (so a factor removed since the token was issued counts at once); a hosted service's token
    /// claims it.
    ///
    /// # Errors
    /// As [`Self::authenticate`], and [`AuthError::MfaRequired`] for an `aal1` session of an account that
    /// has a verified second factor.
    pub async fn authenticate_at_level(&self, bearer: &str) -> Result<Authenticated, AuthError> {
        self.authenticate_in(bearer, None).await.map(|(found, _)| found)
    }

    /// As [`Self::authenticate_at_level`] for a request that names the organization `org`: the caller's
    /// role in it and the revision of its apps are read in the same statement as the session
    /// ([`RefreshTokenRepository::current_of_family_in_org`]), so that the whole request's authorization
    /// is one round trip. `None` for the membership when sessions are not known here (a hosted identity
    /// service): the member directory is then to be asked.
    ///
    /// # Errors
    /// As [`Self::authenticate_at_level`].
    pub async fn authenticate_in_org(
        &self,
        bearer: &str,
        org: OrgId,
    ) -> Result<(Authenticated, Option<MembershipRead>), AuthError> {
        self.authenticate_in(bearer, Some(org)).await
    }

    async fn authenticate_in(
        &self,
        bearer: &str,
        org: Option<OrgId>,
    ) -> Result<(Authenticated, Option<MembershipRead>), AuthError> {
        let token = bearer.trim();
        if token.is_empty() {
            return Err(AuthError::Unauthenticated(TokenError::Invalid));
        }
        let (user_id, email, session, claimed) = self.verify_either(token, org).await?;
        // Read with the session when there is one (one round trip for both), on its own otherwise.
        let (role, proof, protection, membership) = match session {
            Session::Live {
                role,
                proof,
                protection,
                membership,
            } => (role, proof, Some(protection), membership),
            Session::NotKnownHere => (self.admins.role_of(user_id).await?, claimed, None, None),
        };
        let (platform_role, withheld_role) = self
            .admit(protection, proof, role)
            .map_err(|_| AuthError::MfaRequired)?;
        let authenticated = Authenticated {
            caller: Caller {
                user_id,
                email,
                platform_role,
                origin: crate::common::ClientOrigin::default(),
            },
            proof,
            session_id: proof.family,
            protection,
            withheld_role,
        };
        Ok((authenticated, membership))
    }

    /// The access token's session, or `None` when it is over (signed out, revoked or expired).
    async fn session_of(
        &self,
        claims: &AccessTokenClaims,
        now: DateTime<Utc>,
        org: Option<OrgId>,
    ) -> Result<Option<Session>, AuthError> {
        self.family_state(claims.session_id, claims.sub, now, org).await
    }

    /// The session (refresh-token family) `family` of `user`, with the platform role of its account read
    /// in the same query (and, for a request naming `org`, the account's role in it and its apps'
    /// revision), or `None` when it is over: signed out, revoked or expired. Always
    /// [`Session::NotKnownHere`] when sessions are not known here.
    async fn family_state(
        &self,
        family: Uuid,
        user: UserId,
        now: DateTime<Utc>,
        org: Option<OrgId>,
    ) -> Result<Option<Session>, AuthError> {
        let Some(sessions) = &self.sessions else {
            return Ok(Some(Session::NotKnownHere));
        };
        let found = match org {
            None => sessions
                .current_of_family_with_role(family)
                .await?
                .map(|live| (live, None)),
            Some(org) => sessions
                .current_of_family_in_org(family, org)
                .await?
                .map(|found| {
                    let read = MembershipRead::new(
                        found.live.head.user_id,
                        org,
                        found.org_role,
                        found.org_requires_two_factor,
                        found.apps_revision,
                    );
                    (found.live, Some(read))
                }),
        };
        Ok(found
            .filter(|(live, _)| live.head.user_id == user && live.head.check_usable(now).is_ok())
            .map(|(live, membership)| Session::Live {
                role: live.role,
                proof: SessionProof::of(&live.head),
                protection: live.protection,
                membership,
            }))
    }

    /// A core token is accepted while the session it was exchanged from lives. With the built-in identity
    /// service every core token names its session; one that names none was not made here for this server.
    async fn core_session(
        &self,
        claims: &CoreTokenClaims,
        now: DateTime<Utc>,
        org: Option<OrgId>,
    ) -> Result<Option<Session>, AuthError> {
        match (claims.sid, &self.sessions) {
            (_, None) => Ok(Some(Session::NotKnownHere)),
            (None, Some(_)) => Ok(None),
            (Some(family), Some(_)) => self.family_state(family, claims.sub, now, org).await,
        }
    }

    /// The token's user, e-mail, session and what the token itself claims it proves.
    async fn verify_either(
        &self,
        token: &str,
        org: Option<OrgId>,
    ) -> Result<(UserId, EmailAddress, Session, SessionProof), AuthError> {
        let now = self.clock.now();
        let core = self
            .signer
            .verify_core(token, now)
            .await
            .and_then(|claims| claims.check(now).map(|()| claims));
        let core_error = match core {
            Ok(claims) => {
                // Signed out, revoked or taken over: the core token dies with its session.
                let Some(session) = self.core_session(&claims, now, org).await? else {
                    return Err(AuthError::Unauthenticated(TokenError::Invalid));
                };
                let claimed = claimed_proof(&claims.aal, claims.auth_time);
                return Ok((claims.sub, claims.email, session, claimed));
            }
            Err(error) => error,
        };
        let access = self
            .signer
            .verify_access(token, now)
            .await
            .and_then(|claims| claims.check(now).map(|()| claims));
        match access {
            Ok(claims) => {
                // An access token is accepted only while its session lives (signed out means out).
                let Some(session) = self.session_of(&claims, now, org).await? else {
                    return Err(AuthError::Unauthenticated(TokenError::Invalid));
                };
                if let Some(hosted) = &self.hosted {
                    hosted.ensure(&claims).await?;
                }
                let claimed = claimed_proof(&claims.aal, claims.first_factor_at().map(|at| at.timestamp()));
                Ok((claims.sub, claims.email, session, claimed))
            }
            Err(access_error) => {
                let expired = core_error == TokenError::Expired || access_error == TokenError::Expired;
                let error = if expired {
                    TokenError::Expired
                } else {
                    TokenError::Invalid
                };
                Err(AuthError::Unauthenticated(error))
            }
        }
    }
}

/// What a hosted token claims its session proves (its service holds its sessions): its `aal`, and the
/// first-factor time it names (`auth_time` of a core token, the `amr` timestamps of an access token;
/// seconds since the epoch). Without one the sign-in counts as long ago: never recent.
fn claimed_proof(aal: &str, first_factor_at: Option<i64>) -> SessionProof {
    SessionProof {
        aal: Aal::parse(aal).unwrap_or(Aal::Aal1),
        first_factor_at: first_factor_at
            .and_then(|seconds| Utc.timestamp_opt(seconds, 0).single())
            .unwrap_or(DateTime::<Utc>::UNIX_EPOCH),
        family: None,
        raised_by: None,
    }
}

/// What authenticating learnt of the caller's session.
enum Session {
    /// Live, with the platform role of its account as read with it, what it proves, what protects the
    /// account, and the membership read with it when the request names an organization.
    Live {
        role: Option<PlatformRole>,
        proof: SessionProof,
        protection: Protection,
        membership: Option<MembershipRead>,
    },
    /// Not ours to see (a hosted identity service): the platform role is still to be read.
    NotKnownHere,
}

impl Session {
    /// The level of the session: the live head's, or what the token claims when sessions are not ours.
    fn aal(&self, claims: &AccessTokenClaims) -> Aal {
        match self {
            Self::Live { proof, .. } => proof.aal,
            Self::NotKnownHere => Aal::parse(&claims.aal).unwrap_or(Aal::Aal1),
        }
    }

    /// When the session last gave a first factor: the live head's start, or what the token's `amr` says
    /// when sessions are not ours.
    fn first_factor_at(&self, claims: &AccessTokenClaims) -> Option<DateTime<Utc>> {
        match self {
            Self::Live { proof, .. } => Some(proof.first_factor_at),
            Self::NotKnownHere => claims.first_factor_at(),
        }
    }
}

#[cfg(test)]
mod in_org_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::PlatformRole;
    use crate::identity::models::{AuthMethod, LiveSession, RefreshToken};
    use crate::identity::ports::{MockPlatformAdminRepository, MockRefreshTokenRepository, MockTokenSigner};
    use crate::identity::sessions::tokens::AccessTokenClaims;
    use crate::identity::test_support::{access_claims, email};
    use crate::testing::{block_on, fixed_clock, noon};
    use chrono::Duration;
    use mockall::predicate::eq;

    fn service(signer: MockTokenSigner, admins: MockPlatformAdminRepository) -> CoreTokenService {
        CoreTokenService::new(
            Arc::new(signer),
            Arc::new(admins),
            Arc::new(fixed_clock()),
            "https://portal.test".into(),
        )
    }

    fn no_admins() -> MockPlatformAdminRepository {
        let mut admins = MockPlatformAdminRepository::new();
        admins.expect_role_of().returning(|_| Ok(None));
        admins
    }

    #[test]
    fn an_identity_access_token_is_exchanged_for_a_one_hour_core_token() {
        let mut signer = MockTokenSigner::new();
        let claims = access_claims(noon());
        let (sub, mail) = (claims.sub, claims.email.clone());
        signer
            .expect_verify_access()
            .with(eq("idtoken"), eq(noon()))
            .returning(move |_, _| Ok(claims.clone()));
        signer
            .expect_sign_core()
            .withf(move |c| {
                c.sub == sub
                    && c.email == mail
                    && c.aud == "devportal-core"
                    && c.typ == "core"
                    && c.exp - c.iat == 3600
            })
            .returning(|_| Ok("core-token".into()));
        let core = block_on(service(signer, MockPlatformAdminRepository::new()).exchange("idtoken")).unwrap();
        assert_eq!(
            core,
            CoreToken {
                token: "core-token".into(),
                expires_at: noon() + Duration::hours(1)
            }
        );
    }

    #[test]
    fn a_core_token_never_outlives_the_access_token_it_came_from() {
        let mut signer = MockTokenSigner::new();
        // Issued 50 minutes ago: 10 minutes left.
        let claims = access_claims(noon() - Duration::minutes(50));
        let access_exp = claims.exp;
        signer
            .expect_verify_access()
            .returning(move |_, _| Ok(claims.clone()));
        signer
            .expect_sign_core()
            .withf(move |c| c.exp == access_exp)
            .returning(|_| Ok("core-token".into()));
        let core = block_on(service(signer, MockPlatformAdminRepository::new()).exchange("idtoken")).unwrap();
        assert_eq!(core.expires_at, noon() + Duration::minutes(10));
    }

    fn with_session(
        signer: MockTokenSigner,
        head: impl Fn(&AccessTokenClaims) -> Option<RefreshToken> + Send + Sync + 'static,
        claims: &AccessTokenClaims,
    ) -> CoreTokenService {
        let mut sessions = MockRefreshTokenRepository::new();
        let found = head(claims);
        sessions
            .expect_current_of_family_with_role()
            .with(eq(claims.session_id))
            .returning(move |_| {
                Ok(found.clone().map(|head| LiveSession {
                    head,
                    role: None,
                    protection: Protection::default(),
                }))
            });
        service(signer, MockPlatformAdminRepository::new()).with_sessions(Arc::new(sessions))
    }

    fn live_head(claims: &AccessTokenClaims) -> RefreshToken {
        let mut head = RefreshToken::start("h".into(), claims.sub, AuthMethod::Password, noon());
        head.family_id = claims.session_id;
        head
    }

    #[test]
    fn the_access_token_of_a_live_session_is_exchanged() {
        let claims = access_claims(noon());
        let mut signer = MockTokenSigner::new();
        let returned = claims.clone();
        signer
            .expect_verify_access()
            .returning(move |_, _| Ok(returned.clone()));
        signer.expect_sign_core().returning(|_| Ok("core".into()));
        let service = with_session(signer, |c| Some(live_head(c)), &claims);
        assert!(block_on(service.exchange("idtoken")).is_ok());
    }

    #[test]
    fn the_access_token_of_a_signed_out_or_expired_session_is_not_exchanged() {
        let idle = |c: &AccessTokenClaims| {
            let mut head = live_head(c);
            head.last_used_at = noon() - Duration::days(8);
            Some(head)
        };
        for head in [
            Box::new(|_: &AccessTokenClaims| None)
                as Box<dyn Fn(&AccessTokenClaims) -> Option<RefreshToken> + Send + Sync>,
            Box::new(idle),
        ] {
            let claims = access_claims(noon());
            let mut signer = MockTokenSigner::new();
            let returned = claims.clone();
            signer
                .expect_verify_access()
                .returning(move |_, _| Ok(returned.clone()));
            signer.expect_sign_core().never();
            let service = with_session(signer, head, &claims);
            let error = block_on(service.exchange("idtoken")).unwrap_err();
            assert!(matches!(error, AuthError::Unauthenticated(TokenError::Invalid)));
        }
    }

    #[test]
    fn a_core_token_names_the_session_it_was_exchanged_from() {
        let claims = access_claims(noon());
        let session = claims.session_id;
        let mut signer = MockTokenSigner::new();
        let returned = claims.clone();
        signer
            .expect_verify_access()
            .returning(move |_, _| Ok(returned.clone()));
        signer
            .expect_sign_core()
            .withf(move |c| c.sid == Some(session))
            .returning(|_| Ok("core".into()));
        let service = with_session(signer, |c| Some(live_head(c)), &claims);
        assert!(block_on(service.exchange("idtoken")).is_ok());
    }

    /// A service knowing sessions, whose signer takes `core` as a valid core token.
    fn authenticating(core: CoreTokenClaims, head: Option<RefreshToken>) -> CoreTokenService {
        authenticating_with_role(
            core,
            head.map(|head| LiveSession {
                head,
                role: None,
                protection: Protection::default(),
            }),
        )
    }

    /// The same, the session's head read with the platform role of its account. The platform-admin store
    /// has no expectation: the role must come with the session, not from a read of its own.
    fn authenticating_with_role(core: CoreTokenClaims, head: Option<LiveSession>) -> CoreTokenService {
        let mut signer = MockTokenSigner::new();
        signer
            .expect_verify_core()
            .returning(move |_, _| Ok(core.clone()));
        signer
            .expect_verify_access()
            .returning(|_, _| Err(TokenError::Invalid));
        let mut sessions = MockRefreshTokenRepository::new();
        sessions
            .expect_current_of_family_with_role()
            .returning(move |_| Ok(head.clone()));
        service(signer, MockPlatformAdminRepository::new()).with_sessions(Arc::new(sessions))
    }

    #[test]
    fn a_core_token_authenticates_with_the_role_read_with_its_session_in_one_read() {
        let claims = access_claims(noon());
        let mut core = CoreTokenClaims::issue(claims.sub, claims.email.clone(), "iss", noon());
        core.sid = Some(claims.session_id);
        // Staff MFA is required by default: a session carries the platform role only once it passed a
        // second factor (the assurance rule's `UseStaff`), so the session read here did.
        let head = LiveSession {
            head: raised(live_head(&claims)),
            role: Some(PlatformRole::Admin),
            protection: Protection {
                totp: true,
                ..Protection::default()
            },
        };
        let caller = block_on(authenticating_with_role(core, Some(head)).authenticate("core")).unwrap();
        assert_eq!(
            (caller.user_id, caller.platform_role),
            (claims.sub, Some(PlatformRole::Admin))
        );
    }

    fn core_of(claims: &AccessTokenClaims) -> CoreTokenClaims {
        let mut core = CoreTokenClaims::issue(claims.sub, claims.email.clone(), "iss", noon());
        core.sid = Some(claims.session_id);
        core
    }

    fn raised(mut head: RefreshToken) -> RefreshToken {
        head.second_step = Some(crate::identity::models::SecondStep {
            method: crate::identity::models::SecondFactorMethod::Totp,
            factor_id: None,
            at: noon(),
        });
        head
    }

    #[test]
    fn an_aal1_session_of_an_account_with_a_verified_factor_is_refused_with_mfa_required() {
        let claims = access_claims(noon());
        let live = |head: RefreshToken, totp: bool| LiveSession {
            head,
            role: None,
            protection: Protection {
                totp,
                ..Protection::default()
            },
        };
        let refused = block_on(
            authenticating_with_role(core_of(&claims), Some(live(live_head(&claims), true)))
                .authenticate("core"),
        )
        .unwrap_err();
        assert!(matches!(refused, AuthError::MfaRequired));
        // The session that passed the factor goes through, at aal2; an account without one at aal1.
        let passed = block_on(
            authenticating_with_role(core_of(&claims), Some(live(raised(live_head(&claims)), true)))
                .authenticate_at_level("core"),
        )
        .unwrap();
        assert_eq!(passed.aal(), Aal::Aal2);
        let plain = block_on(
            authenticating_with_role(core_of(&claims), Some(live(live_head(&claims), false)))
                .authenticate_at_level("core"),
        )
        .unwrap();
        assert_eq!(plain.aal(), Aal::Aal1);
    }

    #[test]
    fn staff_without_a_passed_second_factor_carry_no_platform_role_unless_staff_mfa_is_optional() {
        let claims = access_claims(noon());
        let reviewer = |head: RefreshToken, totp: bool| LiveSession {
            head,
            role: Some(PlatformRole::Reviewer),
            protection: Protection {
                totp,
                ..Protection::default()
            },
        };
        for (head, totp, role) in [
            (live_head(&claims), false, None),
            (raised(live_head(&claims)), true, Some(PlatformRole::Reviewer)),
        ] {
            let found = block_on(
                authenticating_with_role(core_of(&claims), Some(reviewer(head, totp)))
                    .authenticate_at_level("core"),
            )
            .unwrap();
            assert_eq!(found.caller.platform_role, role);
            let withheld = role.is_none().then_some(PlatformRole::Reviewer);
            assert_eq!(found.withheld_role, withheld);
        }
        let optional = authenticating_with_role(core_of(&claims), Some(reviewer(live_head(&claims), false)))
            .with_staff_mfa(false);
        let found = block_on(optional.authenticate_at_level("core")).unwrap();
        assert_eq!(found.caller.platform_role, Some(PlatformRole::Reviewer));
    }

    #[test]
    fn only_an_aal2_session_of_an_account_whose_factor_remains_passed_a_second_factor() {
        let claims = access_claims(noon());
        let at = |aal, has_verified_factor: Option<bool>| Authenticated {
            caller: Caller {
                user_id: claims.sub,
                email: claims.email.clone(),
                platform_role: None,
                origin: crate::common::ClientOrigin::default(),
            },
            proof: SessionProof {
                aal,
                first_factor_at: noon(),
                family: None,
                raised_by: None,
            },
            session_id: None,
            protection: has_verified_factor.map(|totp| Protection {
                totp,
                ..Protection::default()
            }),
            withheld_role: None,
        };
        assert_eq!(at(Aal::Aal2, Some(true)).second_factor(), SecondFactor::Passed);
        // Hosted: the token's aal speaks for the factor.
        assert_eq!(at(Aal::Aal2, None).second_factor(), SecondFactor::Passed);
        assert_eq!(at(Aal::Aal1, None).second_factor(), SecondFactor::NotPassed);
        assert_eq!(
            at(Aal::Aal1, Some(false)).second_factor(),
            SecondFactor::NotPassed
        );
        // Raised once, but the factor was removed since.
        assert_eq!(
            at(Aal::Aal2, Some(false)).second_factor(),
            SecondFactor::NotPassed
        );
    }

    #[test]
    fn a_hosted_token_authenticates_at_the_level_it_claims() {
        for (claimed, expected) in [("aal2", Aal::Aal2), ("aal1", Aal::Aal1), ("", Aal::Aal1)] {
            let mut claims = access_claims(noon());
            claims.aal = claimed.to_owned();
            let mut signer = MockTokenSigner::new();
            signer
                .expect_verify_core()
                .returning(|_, _| Err(TokenError::Invalid));
            signer
                .expect_verify_access()
                .returning(move |_, _| Ok(claims.clone()));
            let found = block_on(service(signer, no_admins()).authenticate_at_level("hosted")).unwrap();
            assert_eq!((found.aal(), found.protection), (expected, None), "{claimed:?}");
        }
    }

    #[test]
    fn a_core_token_authenticates_while_its_session_lives() {
        let claims = access_claims(noon());
        let mut core = CoreTokenClaims::issue(claims.sub, claims.email.clone(), "iss", noon());
        core.sid = Some(claims.session_id);
        let caller = block_on(authenticating(core, Some(live_head(&claims))).authenticate("core")).unwrap();
        assert_eq!(caller.user_id, claims.sub);
    }

    #[test]
    fn a_core_token_dies_with_its_signed_out_revoked_or_taken_over_session() {
        let claims = access_claims(noon());
        let mut revoked = live_head(&claims);
        revoked.revoked_at = Some(noon() - Duration::minutes(1));
        let mut someone_else = live_head(&claims);
        someone_else.user_id = UserId::new();
        for head in [None, Some(revoked), Some(someone_else)] {
            let mut core = CoreTokenClaims::issue(claims.sub, claims.email.clone(), "iss", noon());
            core.sid = Some(claims.session_id);
            let error = block_on(authenticating(core, head).authenticate("core")).unwrap_err();
            assert!(matches!(error, AuthError::Unauthenticated(TokenError::Invalid)));
        }
    }

    #[test]
    fn a_core_token_without_a_session_is_refused_where_sessions_are_known() {
        let claims = access_claims(noon());
        let core = CoreTokenClaims::issue(claims.sub, claims.email.clone(), "iss", noon());
        let error =
            block_on(authenticating(core, Some(live_head(&claims))).authenticate("core")).unwrap_err();
        assert!(matches!(error, AuthError::Unauthenticated(TokenError::Invalid)));
    }

    #[test]
    fn a_core_token_cannot_be_exchanged() {
        let mut signer = MockTokenSigner::new();
        signer
            .expect_verify_access()
            .returning(|_, _| Err(TokenError::Invalid));
        signer.expect_sign_core().never();
        let error =
            block_on(service(signer, MockPlatformAdminRepository::new()).exchange("core")).unwrap_err();
        assert!(matches!(error, AuthError::Unauthenticated(TokenError::Invalid)));
    }

    #[test]
    fn a_core_token_authenticates_with_the_platform_role_bound_to_its_account() {
        let mut signer = MockTokenSigner::new();
        let mut core = CoreTokenClaims::issue(UserId::new(), email("boss@example.com"), "iss", noon());
        // Staff MFA is required by default and no session is known here: the token's `aal` speaks for the
        // session, which must have passed a second factor to carry the platform role (`UseStaff`).
        core.aal = "aal2".into();
        let sub = core.sub;
        signer
            .expect_verify_core()
            .returning(move |_, _| Ok(core.clone()));
        signer.expect_verify_access().never();
        let mut admins = MockPlatformAdminRepository::new();
        admins
            .expect_role_of()
            .with(eq(sub))
            .times(1)
            .returning(|_| Ok(Some(PlatformRole::Reviewer)));
        let caller = block_on(service(signer, admins).authenticate("Bearer-less core")).unwrap();
        assert_eq!(caller.user_id, sub);
        assert_eq!(caller.platform_role, Some(PlatformRole::Reviewer));
    }

    #[test]
    fn an_identity_access_token_is_the_fallback() {
        let mut signer = MockTokenSigner::new();
        let claims = access_claims(noon());
        let sub = claims.sub;
        signer
            .expect_verify_core()
            .returning(|_, _| Err(TokenError::Invalid));
        signer
            .expect_verify_access()
            .returning(move |_, _| Ok(claims.clone()));
        let caller = block_on(service(signer, no_admins()).authenticate("idtoken")).unwrap();
        assert_eq!((caller.user_id, caller.platform_role), (sub, None));
    }

    #[test]
    fn anything_else_is_unauthenticated() {
        let mut signer = MockTokenSigner::new();
        signer
            .expect_verify_core()
            .returning(|_, _| Err(TokenError::Invalid));
        signer
            .expect_verify_access()
            .returning(|_, _| Err(TokenError::Invalid));
        let service = service(signer, MockPlatformAdminRepository::new());
        for bearer in ["", "   ", "a-refresh-token", "dp_live_apikey", "invite-token"] {
            let error = block_on(service.authenticate(bearer)).unwrap_err();
            assert!(
                matches!(error, AuthError::Unauthenticated(TokenError::Invalid)),
                "{bearer:?}"
            );
            assert!(!error.is_expired());
        }
    }

    #[test]
    fn an_expired_token_says_so() {
        let mut signer = MockTokenSigner::new();
        signer
            .expect_verify_core()
            .returning(|_, _| Err(TokenError::Expired));
        signer
            .expect_verify_access()
            .returning(|_, _| Err(TokenError::Invalid));
        let error =
            block_on(service(signer, MockPlatformAdminRepository::new()).authenticate("old")).unwrap_err();
        assert!(error.is_expired());
        assert_eq!(error.to_string(), "Invalid or expired token");
    }

    #[test]
    fn core_claims_past_their_expiry_are_refused_even_if_the_signer_returns_them() {
        let mut signer = MockTokenSigner::new();
        let core = CoreTokenClaims::issue(UserId::new(), email("a@b.co"), "iss", noon() - Duration::hours(2));
        signer
            .expect_verify_core()
            .returning(move |_, _| Ok(core.clone()));
        signer
            .expect_verify_access()
            .returning(|_, _| Err(TokenError::Invalid));
        let error =
            block_on(service(signer, MockPlatformAdminRepository::new()).authenticate("t")).unwrap_err();
        assert!(error.is_expired());
    }

    fn hosted(accounts: crate::identity::ports::MockAccountRepository) -> HostedAccounts {
        HostedAccounts::new(Arc::new(accounts), Arc::new(fixed_clock()))
    }

    #[test]
    fn a_hosted_access_token_gets_its_local_account_before_it_is_exchanged() {
        let claims = access_claims(noon());
        let sub = claims.sub;
        let mut signer = MockTokenSigner::new();
        let returned = claims.clone();
        signer
            .expect_verify_access()
            .returning(move |_, _| Ok(returned.clone()));
        signer.expect_sign_core().returning(|_| Ok("core".into()));
        let mut accounts = crate::identity::ports::MockAccountRepository::new();
        accounts.expect_get().returning(|_| Ok(None));
        accounts.expect_find_by_email().returning(|_| Ok(None));
        accounts
            .expect_create()
            .withf(move |a| a.id == sub)
            .times(1)
            .returning(|_| Ok(()));
        let service =
            service(signer, MockPlatformAdminRepository::new()).with_hosted_accounts(hosted(accounts));
        assert!(block_on(service.exchange("hosted")).is_ok());
    }

    #[test]
    fn a_hosted_user_whose_email_another_account_has_gets_no_core_token() {
        let claims = access_claims(noon());
        let mut signer = MockTokenSigner::new();
        let returned = claims.clone();
        signer
            .expect_verify_access()
            .returning(move |_, _| Ok(returned.clone()));
        signer
            .expect_verify_core()
            .returning(|_, _| Err(TokenError::Invalid));
        signer.expect_sign_core().never();
        let mut accounts = crate::identity::ports::MockAccountRepository::new();
        accounts.expect_get().returning(|_| Ok(None));
        accounts.expect_find_by_email().returning(|address| {
            Ok(Some(crate::identity::models::Account::new(
                address.clone(),
                noon(),
            )))
        });
        accounts.expect_create().never();
        let service =
            service(signer, MockPlatformAdminRepository::new()).with_hosted_accounts(hosted(accounts));
        let error = block_on(service.exchange("hosted")).unwrap_err();
        assert!(matches!(error, AuthError::EmailInUse { user } if user == claims.sub));
        // The same token used directly on the product API is refused alike.
        let error = block_on(service.authenticate("hosted")).unwrap_err();
        assert!(matches!(error, AuthError::EmailInUse { .. }));
    }

    #[test]
    fn a_core_token_needs_no_account_lookup_in_hosted_mode() {
        let mut signer = MockTokenSigner::new();
        let core = CoreTokenClaims::issue(UserId::new(), email("a@b.co"), "iss", noon());
        signer
            .expect_verify_core()
            .returning(move |_, _| Ok(core.clone()));
        let mut accounts = crate::identity::ports::MockAccountRepository::new();
        accounts.expect_get().never();
        accounts.expect_create().never();
        let service = service(signer, no_admins()).with_hosted_accounts(hosted(accounts));
        assert!(block_on(service.authenticate("core")).is_ok());
    }
}
