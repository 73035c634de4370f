//! The product's own session: `POST /api/auth/exchange-token` turns an identity access token into a core
//! token, and every product API request is authenticated from its bearer (PRODUCT.md §1).
//!
//! The product API accepts a core token or, as the specification's fallback, a valid identity access token;
//! nothing else: refresh tokens, invitation and share tokens, e-mail links and API keys are opaque strings
//! that neither verification accepts.
//!
//! The service and its settings are here; authenticating a bearer is in `authenticate.rs`, the exchange in
//! `exchange.rs`, the session a token belongs to in `session.rs`, the authenticated caller in
//! `authenticated.rs`, the errors in `errors.rs`.

mod access_tokens;
mod authenticate;
mod authenticated;
mod errors;
mod exchange;
pub mod hosted;
mod session;

pub use access_tokens::{AccessTokenCheck, CheckedToken, StandingInOrg, TokenRefusal};
pub use authenticated::Authenticated;
pub use errors::AuthError;
pub use exchange::CoreToken;

use std::sync::Arc;

use crate::common::{Clock, PlatformRole};
use crate::identity::assurance::{Action, AssuranceRules, Protection, Refusal, SessionProof};
use crate::identity::core_token::hosted::HostedAccounts;
use crate::identity::ports::{PlatformAdminRepository, RefreshTokenRepository, TokenSigner};

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
}

#[cfg(test)]
mod in_org_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::{Caller, PlatformRole, UserId};
    use crate::identity::models::{Aal, AuthMethod, LiveSession, RefreshToken};
    use crate::identity::ports::{MockPlatformAdminRepository, MockRefreshTokenRepository, MockTokenSigner};
    use crate::identity::sessions::tokens::{AccessTokenClaims, CoreTokenClaims, TokenError};
    use crate::identity::test_support::{access_claims, email};
    use crate::membership::SecondFactor;
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
