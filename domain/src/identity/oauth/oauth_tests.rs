//! Unit tests of the OAuth flow (`oauth.rs`), with mocked ports.

use super::*;
use crate::identity::errors::IdentityError;
use crate::identity::oauth::callback::oauth_error_name;
use crate::identity::oauth::external::ProviderProfile;
use crate::identity::test_support::{Mocks, account, identity};
use crate::testing::{RepeatingBytes, block_on, fixed_clock, noon};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::json;
use std::sync::Mutex;

const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

fn profile() -> ProviderProfile {
    ProviderProfile {
        issuer: "https://accounts.google.test".into(),
        subject: "g-1".into(),
        provider: "google".into(),
        email: Some("dev@example.com".into()),
        email_verified: true,
        claims: json!({"name": "Ada"}),
    }
}

/// A flow store that follows the port contract in memory.
#[derive(Default)]
struct Store {
    flows: Mutex<Vec<OAuthFlow>>,
    codes: Mutex<Vec<AuthCode>>,
}

#[async_trait]
impl OAuthFlowRepository for Store {
    async fn insert_flow(&self, flow: &OAuthFlow) -> Result<(), RepoError> {
        self.flows.lock().unwrap().push(flow.clone());
        Ok(())
    }
    async fn take_flow(&self, state_hash: &str) -> Result<Option<OAuthFlow>, RepoError> {
        let mut flows = self.flows.lock().unwrap();
        let at = flows.iter().position(|f| f.state_hash == state_hash);
        Ok(at.map(|i| flows.remove(i)))
    }
    async fn insert_code(&self, code: &AuthCode) -> Result<(), RepoError> {
        self.codes.lock().unwrap().push(code.clone());
        Ok(())
    }
    async fn take_code(&self, code_hash: &str) -> Result<Option<AuthCode>, RepoError> {
        let mut codes = self.codes.lock().unwrap();
        let at = codes.iter().position(|c| c.code_hash == code_hash);
        Ok(at.map(|i| codes.remove(i)))
    }
    async fn prune_expired(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        self.flows.lock().unwrap().retain(|f| f.expires_at >= cutoff);
        Ok(0)
    }
}

struct Setup {
    mocks: Mocks,
    provider: MockOidcProvider,
    store: Arc<Store>,
    clock: Arc<crate::common::clock::FixedClock>,
}

impl Setup {
    fn new() -> Self {
        Self {
            mocks: Mocks::new(),
            provider: MockOidcProvider::new(),
            store: Arc::new(Store::default()),
            clock: Arc::new(fixed_clock()),
        }
    }

    fn service(self) -> (OAuthService, Arc<Store>) {
        let mut providers: BTreeMap<String, Arc<dyn OidcProvider>> = BTreeMap::new();
        providers.insert("google".into(), Arc::new(self.provider));
        providers.insert("twitter".into(), Arc::new(MockOidcProvider::new()));
        let service = OAuthService::new(
            self.mocks.service().providers,
            self.store.clone(),
            providers,
            self.clock,
            Arc::new(RepeatingBytes(9)),
            OAuthConfig {
                public_url: "https://portal.test".into(),
            },
            crate::identity::test_support::volume_limits(),
        );
        (service, self.store)
    }
}

fn authorize_google<'a>(redirect_to: Option<&'a str>) -> AuthorizeRequest<'a> {
    AuthorizeRequest {
        client: crate::identity::test_support::CLIENT,
        provider: Some("google"),
        redirect_to,
        code_challenge: Some(CHALLENGE),
        code_challenge_method: Some("s256"),
    }
}

/// The state the service sends (RepeatingBytes(9) → "0909…").
fn state() -> String {
    "09".repeat(SECRET_BYTES)
}

#[test]
fn the_rfc_7636_example_verifier_gives_its_challenge() {
    assert_eq!(s256_challenge(VERIFIER), CHALLENGE);
    assert_eq!(base64url(b"f"), "Zg");
    assert_eq!(base64url(b"fo"), "Zm8");
    assert_eq!(base64url(b"foo"), "Zm9v");
    assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
}

#[test]
fn a_challenge_matches_only_its_verifier() {
    let s256 = CodeChallenge::parse(Some(CHALLENGE), Some("S256")).unwrap();
    assert!(s256.matches(VERIFIER));
    assert!(!s256.matches("another-verifier-another-verifier-another-verifier"));
    let plain = CodeChallenge::parse(Some(VERIFIER), Some("plain")).unwrap();
    assert!(plain.matches(VERIFIER));
    assert!(!plain.matches(CHALLENGE));
}

#[test]
fn malformed_challenges_are_refused() {
    assert!(matches!(
        CodeChallenge::parse(None, Some("s256")),
        Err(OAuthError::PkceRequired)
    ));
    assert!(matches!(
        CodeChallenge::parse(Some(CHALLENGE), None),
        Err(OAuthError::PkceRequired)
    ));
    for (challenge, method) in [
        (CHALLENGE, "md5"),
        ("short", "s256"),
        (&*"a".repeat(129), "s256"),
        (&*format!("{}!", &CHALLENGE[..43]), "s256"),
    ] {
        assert!(matches!(
            CodeChallenge::parse(Some(challenge), Some(method)),
            Err(OAuthError::InvalidChallenge(_))
        ));
    }
}

#[test]
fn authorize_keeps_a_flow_and_answers_the_providers_url() {
    let mut setup = Setup::new();
    setup
        .provider
        .expect_authorization_url()
        .withf(|r| {
            r.state == state()
                && r.nonce == "09".repeat(SECRET_BYTES)
                && r.redirect_uri == "https://portal.test/auth/v1/callback"
        })
        .times(1)
        .returning(|_| Ok("https://accounts.google.test/auth?x=1".into()));
    let (service, store) = setup.service();
    let url = block_on(service.authorize(authorize_google(Some("/dashboard#top")))).unwrap();
    assert_eq!(url, "https://accounts.google.test/auth?x=1");
    let flows = store.flows.lock().unwrap();
    assert_eq!(flows.len(), 1);
    assert_eq!(flows[0].state_hash, digest_secret(&state()));
    assert_eq!(flows[0].redirect_to, "https://portal.test/dashboard");
    assert_eq!(flows[0].provider, "google");
    assert_eq!(flows[0].expires_at, noon() + Duration::minutes(10));
    assert_eq!(flows[0].challenge.method, ChallengeMethod::S256);
}

#[test]
fn authorize_refuses_unknown_unconfigured_and_foreign_targets_before_any_redirect() {
    let (service, store) = Setup::new().service();
    let unknown = block_on(service.authorize(AuthorizeRequest {
        client: crate::identity::test_support::CLIENT,
        provider: Some("myspace"),
        ..authorize_google(None)
    }))
    .unwrap_err();
    assert!(matches!(unknown, OAuthError::UnknownProvider(ref p) if p == "myspace"));
    assert_eq!(unknown.error_code(), "validation_failed");
    let twitter = block_on(service.authorize(AuthorizeRequest {
        client: crate::identity::test_support::CLIENT,
        provider: Some("twitter"),
        ..authorize_google(None)
    }))
    .unwrap_err();
    assert!(
        matches!(twitter, OAuthError::UnknownProvider(_)),
        "only known providers are configurable"
    );
    let apple = block_on(service.authorize(AuthorizeRequest {
        client: crate::identity::test_support::CLIENT,
        provider: Some("apple"),
        ..authorize_google(None)
    }))
    .unwrap_err();
    assert_eq!(apple.error_code(), "provider_disabled");
    assert_eq!(
        apple.to_string(),
        "Sign-in with Apple is not configured on this server"
    );
    for foreign in [
        "https://evil.test/",
        "//evil.test/x",
        "javascript:alert(1)",
        "http://portal.test/",
    ] {
        let error = block_on(service.authorize(authorize_google(Some(foreign)))).unwrap_err();
        assert!(matches!(error, OAuthError::RedirectNotAllowed), "{foreign}");
    }
    let no_pkce = block_on(service.authorize(AuthorizeRequest {
        client: crate::identity::test_support::CLIENT,
        code_challenge: None,
        ..authorize_google(None)
    }))
    .unwrap_err();
    assert!(matches!(no_pkce, OAuthError::PkceRequired));
    assert!(store.flows.lock().unwrap().is_empty());
    assert_eq!(service.configured(), vec!["google"]);
    assert!(service.is_configured("google") && !service.is_configured("apple"));
}

fn started(setup: &mut Setup) {
    setup
        .provider
        .expect_authorization_url()
        .returning(|_| Ok("https://accounts.google.test/auth".into()));
}

#[test]
fn the_whole_flow_signs_in_with_the_right_verifier_once() {
    let mut setup = Setup::new();
    started(&mut setup);
    setup
        .provider
        .expect_exchange()
        .withf(|e| e.code == "provider-code" && e.nonce == "09".repeat(SECRET_BYTES))
        .times(1)
        .returning(|_| Ok(profile()));
    let stored = account("dev@example.com", true);
    let user = stored.id;
    let link = identity("google", user);
    setup
        .mocks
        .links
        .expect_find()
        .returning(move |_, _| Ok(Some(link.clone())));
    setup
        .mocks
        .accounts
        .expect_get()
        .returning(move |_| Ok(Some(stored.clone())));
    setup.mocks.allow_sessions();
    let (service, store) = setup.service();
    block_on(service.authorize(authorize_google(Some("https://portal.test/signin")))).unwrap();
    let outcome = block_on(service.callback(CallbackRequest {
        state: Some(&state()),
        code: Some("provider-code"),
        ..CallbackRequest::default()
    }));
    assert_eq!(outcome.redirect_to, "https://portal.test/signin");
    let code = outcome.result.unwrap();
    assert_eq!(store.codes.lock().unwrap()[0].code_hash, digest_secret(&code));
    assert!(store.flows.lock().unwrap().is_empty(), "the flow is spent");
    let session =
        block_on(service.exchange_pkce(crate::identity::test_support::CLIENT, &code, VERIFIER)).unwrap();
    assert_eq!(session.user.account.id, user);
    let again =
        block_on(service.exchange_pkce(crate::identity::test_support::CLIENT, &code, VERIFIER)).unwrap_err();
    assert!(matches!(again, OAuthError::FlowNotFound));
    let replay = block_on(service.callback(CallbackRequest {
        state: Some(&state()),
        code: Some("provider-code"),
        ..CallbackRequest::default()
    }));
    assert!(matches!(replay.result, Err(OAuthError::StateUnknown)));
    assert_eq!(replay.redirect_to, "https://portal.test/");
}

fn code_for(setup: Setup) -> (OAuthService, Arc<Store>, String) {
    let (service, store) = setup.service();
    block_on(service.authorize(authorize_google(None))).unwrap();
    let outcome = block_on(service.callback(CallbackRequest {
        state: Some(&state()),
        code: Some("provider-code"),
        ..CallbackRequest::default()
    }));
    let code = outcome.result.unwrap();
    (service, store, code)
}

fn exchanging() -> Setup {
    let mut setup = Setup::new();
    started(&mut setup);
    setup.provider.expect_exchange().returning(|_| Ok(profile()));
    setup
}

#[test]
fn a_wrong_verifier_is_refused_and_spends_the_code() {
    let setup = exchanging();
    let (service, store, code) = code_for(setup);
    let wrong = block_on(service.exchange_pkce(
        crate::identity::test_support::CLIENT,
        &code,
        "wrong-verifier-wrong-verifier-wrong-verifier",
    ))
    .unwrap_err();
    assert!(matches!(wrong, OAuthError::BadCodeVerifier));
    assert_eq!(wrong.error_code(), "bad_code_verifier");
    assert!(store.codes.lock().unwrap().is_empty());
    let right =
        block_on(service.exchange_pkce(crate::identity::test_support::CLIENT, &code, VERIFIER)).unwrap_err();
    assert!(matches!(right, OAuthError::FlowNotFound));
}

#[test]
fn an_expired_auth_code_is_refused() {
    let setup = exchanging();
    let (service, store, code) = code_for(setup);
    store.codes.lock().unwrap()[0].expires_at = noon();
    let error =
        block_on(service.exchange_pkce(crate::identity::test_support::CLIENT, &code, VERIFIER)).unwrap_err();
    assert!(matches!(error, OAuthError::FlowExpired));
    assert_eq!(error.error_code(), "flow_state_expired");
}

#[test]
fn an_empty_exchange_is_a_validation_error() {
    let (service, _) = Setup::new().service();
    for (code, verifier) in [("", VERIFIER), ("code", " ")] {
        let error = block_on(service.exchange_pkce(crate::identity::test_support::CLIENT, code, verifier))
            .unwrap_err();
        assert!(matches!(error, OAuthError::ExchangeIncomplete));
    }
}

#[test]
fn an_expired_flow_is_refused_at_the_callback_and_returns_to_its_page() {
    let mut setup = Setup::new();
    started(&mut setup);
    setup.provider.expect_exchange().never();
    let (service, store) = setup.service();
    block_on(service.authorize(authorize_google(Some("/signin")))).unwrap();
    store.flows.lock().unwrap()[0].expires_at = noon();
    let outcome = block_on(service.callback(CallbackRequest {
        state: Some(&state()),
        code: Some("provider-code"),
        ..CallbackRequest::default()
    }));
    assert_eq!(outcome.redirect_to, "https://portal.test/signin");
    assert!(matches!(outcome.result, Err(OAuthError::StateExpired)));
}

#[test]
fn the_providers_error_and_a_missing_code_or_state_are_reported() {
    let mut setup = Setup::new();
    started(&mut setup);
    setup.provider.expect_exchange().never();
    let (service, _) = setup.service();
    block_on(service.authorize(authorize_google(None))).unwrap();
    let denied = block_on(service.callback(CallbackRequest {
        state: Some(&state()),
        error: Some("access_denied"),
        error_description: Some("The user said no"),
        ..CallbackRequest::default()
    }));
    match denied.result {
        Err(OAuthError::ProviderDenied { error, description }) => {
            assert_eq!(
                (error.as_str(), description.as_str()),
                ("access_denied", "The user said no")
            );
        }
        other => panic!("{other:?}"),
    }
    block_on(service.authorize(authorize_google(None))).unwrap();
    let no_code = block_on(service.callback(CallbackRequest {
        state: Some(&state()),
        ..CallbackRequest::default()
    }));
    assert!(matches!(no_code.result, Err(OAuthError::CodeMissing)));
    let no_state = block_on(service.callback(CallbackRequest::default()));
    assert!(matches!(no_state.result, Err(OAuthError::StateMissing)));
}

#[test]
fn an_id_token_that_fails_verification_issues_no_code() {
    let mut setup = Setup::new();
    started(&mut setup);
    setup
        .provider
        .expect_exchange()
        .returning(|_| Err(OidcError::InvalidIdToken("nonce".into())));
    let (service, store) = setup.service();
    block_on(service.authorize(authorize_google(None))).unwrap();
    let outcome = block_on(service.callback(CallbackRequest {
        state: Some(&state()),
        code: Some("provider-code"),
        ..CallbackRequest::default()
    }));
    let error = outcome.result.unwrap_err();
    assert_eq!(error.error_code(), "bad_oauth_callback");
    assert!(store.codes.lock().unwrap().is_empty());
}

#[test]
fn the_linking_rule_answers_at_the_exchange() {
    let mut setup = exchanging();
    setup.mocks.links.expect_find().returning(|_, _| Ok(None));
    setup
        .mocks
        .accounts
        .expect_find_by_email()
        .returning(|_| Ok(Some(account("dev@example.com", false))));
    setup.mocks.links.expect_link().never();
    let (service, _, code) = code_for(setup);
    let error =
        block_on(service.exchange_pkce(crate::identity::test_support::CLIENT, &code, VERIFIER)).unwrap_err();
    assert!(matches!(
        error,
        OAuthError::Identity(IdentityError::AccountNotLinkable)
    ));
    assert_eq!(error.error_code(), "identity_already_exists");
}

#[test]
fn expired_rows_are_pruned() {
    let mut setup = Setup::new();
    started(&mut setup);
    let (service, store) = setup.service();
    store.flows.lock().unwrap().push(OAuthFlow {
        state_hash: "old".into(),
        provider: "google".into(),
        challenge: CodeChallenge::parse(Some(CHALLENGE), Some("s256")).unwrap(),
        redirect_to: "https://portal.test/".into(),
        nonce: "n".into(),
        provider_verifier: "v".into(),
        created_at: noon() - Duration::hours(1),
        expires_at: noon() - Duration::minutes(50),
    });
    block_on(service.authorize(authorize_google(None))).unwrap();
    block_on(service.prune_expired()).unwrap();
    let flows = store.flows.lock().unwrap();
    assert_eq!(flows.len(), 1);
    assert_ne!(flows[0].state_hash, "old");
}

#[test]
fn a_provider_error_name_is_reduced_to_safe_characters() {
    assert_eq!(oauth_error_name("access_denied"), "access_denied");
    assert_eq!(oauth_error_name("<script>"), "script");
    assert_eq!(oauth_error_name("%%%"), "access_denied");
}
