use crate::identity::attempts::Guarded;
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use std::sync::{Arc, Mutex};
use uuid::Uuid;

use super::*;
use crate::common::{RepoError, UserId};
use crate::identity::models::{AuthMethod, SecondFactorMethod};
use crate::identity::ports::{
    AssertionClaim, CeremonyStart, MockWebAuthnCeremony, RegisteredCredential, VerifiedAssertion,
};
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::identity::test_support::{Mocks, access_claims, account, live_head, raised};
use crate::mail::OutgoingEmail;
use crate::testing::noon;

/// A passkey store that follows the port contract in memory.
#[derive(Default)]
struct InMemoryPasskeys {
    passkeys: Mutex<Vec<Passkey>>,
    challenges: Mutex<Vec<WebAuthnChallenge>>,
    outbox: Mutex<Vec<OutgoingEmail>>,
}

#[async_trait]
impl PasskeyRepository for InMemoryPasskeys {
    async fn insert_challenge(&self, challenge: &WebAuthnChallenge) -> Result<(), RepoError> {
        self.challenges.lock().unwrap().push(challenge.clone());
        Ok(())
    }

    async fn take_challenge(
        &self,
        id: Uuid,
        kind: CeremonyKind,
        user: Option<UserId>,
    ) -> Result<Option<WebAuthnChallenge>, RepoError> {
        let mut challenges = self.challenges.lock().unwrap();
        let position = challenges
            .iter()
            .position(|c| c.id == id && c.kind == kind && c.user_id == user);
        Ok(position.map(|p| challenges.remove(p)))
    }

    async fn prune_challenges(&self, now: DateTime<Utc>) -> Result<u64, RepoError> {
        let mut challenges = self.challenges.lock().unwrap();
        let before = challenges.len();
        challenges.retain(|c| c.expires_at() > now);
        Ok((before - challenges.len()) as u64)
    }

    async fn insert(
        &self,
        passkey: &Passkey,
        notice: &OutgoingEmail,
        _: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let mut passkeys = self.passkeys.lock().unwrap();
        if passkeys.iter().any(|p| p.credential_id == passkey.credential_id) {
            return Err(RepoError::Duplicate("credential_id"));
        }
        passkeys.push(passkey.clone());
        self.outbox.lock().unwrap().push(notice.clone());
        Ok(())
    }

    async fn list_for_user(&self, user: UserId) -> Result<Vec<Passkey>, RepoError> {
        Ok(self
            .passkeys
            .lock()
            .unwrap()
            .iter()
            .filter(|p| p.user_id == user)
            .cloned()
            .collect())
    }

    async fn find_by_credential(&self, credential_id: &str) -> Result<Option<Passkey>, RepoError> {
        Ok(self
            .passkeys
            .lock()
            .unwrap()
            .iter()
            .find(|p| p.credential_id == credential_id)
            .cloned())
    }

    async fn record_use(&self, id: Uuid, old: i64, new: i64, now: DateTime<Utc>) -> Result<bool, RepoError> {
        let mut passkeys = self.passkeys.lock().unwrap();
        Ok(
            match passkeys.iter_mut().find(|p| p.id == id && p.sign_count == old) {
                Some(passkey) => {
                    passkey.sign_count = new;
                    passkey.last_used_at = Some(now);
                    true
                }
                None => false,
            },
        )
    }

    async fn rename(&self, user: UserId, id: Uuid, name: &str) -> Result<Option<Passkey>, RepoError> {
        let mut passkeys = self.passkeys.lock().unwrap();
        Ok(passkeys
            .iter_mut()
            .find(|p| p.id == id && p.user_id == user)
            .map(|p| {
                p.friendly_name = Some(name.to_owned());
                p.clone()
            }))
    }

    async fn delete(
        &self,
        user: UserId,
        id: Uuid,
        notice: &OutgoingEmail,
        _: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        let mut passkeys = self.passkeys.lock().unwrap();
        let before = passkeys.len();
        passkeys.retain(|p| !(p.id == id && p.user_id == user));
        let removed = passkeys.len() < before;
        if removed {
            self.outbox.lock().unwrap().push(notice.clone());
        }
        Ok(removed)
    }
}

/// Mocks where `claims`'s account exists (confirmed), sessions can start, and the ceremony answers fixed
/// options, a credential `cred-1` counting from `count`, and sign-ins of that credential by this account.
fn mocks_for(claims: &AccessTokenClaims, count: u32) -> (Mocks, MockWebAuthnCeremony) {
    let mut m = Mocks::new();
    let mut stored = account("dev@example.com", true);
    stored.id = claims.sub;
    m.accounts
        .expect_get()
        .returning(move |_| Ok(Some(stored.clone())));
    m.allow_sessions();
    let mut ceremony = MockWebAuthnCeremony::new();
    ceremony.expect_start_registration().returning(|_, _, _| {
        Ok(CeremonyStart {
            options: json!({"challenge": "c-reg"}),
            state: "reg-state".into(),
        })
    });
    ceremony.expect_finish_registration().returning(|state, _| {
        assert_eq!(state, "reg-state");
        Ok(RegisteredCredential {
            credential_id: "cred-1".into(),
            public_key: "key-1".into(),
            sign_count: 0,
        })
    });
    ceremony.expect_start_authentication().returning(|| {
        Ok(CeremonyStart {
            options: json!({"challenge": "c-auth"}),
            state: "auth-state".into(),
        })
    });
    let user = claims.sub;
    ceremony.expect_claim().returning(move |_| {
        Ok(AssertionClaim {
            credential_id: "cred-1".into(),
            user: Some(user),
        })
    });
    ceremony
        .expect_finish_authentication()
        .returning(move |state, _, key| {
            assert_eq!((state, key), ("auth-state", "key-1"));
            Ok(VerifiedAssertion { sign_count: count })
        });
    (m, ceremony)
}

/// The passkey service over `store`, where the sessions of `live` are live as the assurance rule reads
/// them: what protects the account comes from the factor store and, at each read, from `store`'s passkeys.
fn service(
    mut m: Mocks,
    ceremony: MockWebAuthnCeremony,
    store: &Arc<InMemoryPasskeys>,
    live: &[&AccessTokenClaims],
) -> PasskeyService {
    for claims in live {
        let passkeys = Arc::clone(store);
        m.live_session_of(live_head(claims), move |user| {
            passkeys
                .passkeys
                .lock()
                .unwrap()
                .iter()
                .any(|p| p.user_id == user)
        });
    }
    PasskeyService::new(
        m.service().issuer,
        store.clone(),
        Arc::new(ceremony),
        crate::identity::test_support::volume_limits(),
    )
}

fn run<T>(future: impl std::future::Future<Output = T>) -> T {
    futures::executor::block_on(future)
}

fn aal2(mut claims: AccessTokenClaims) -> AccessTokenClaims {
    claims.aal = "aal2".into();
    claims
}

/// Registers `cred-1` for `claims`'s account.
fn register(passkeys: &PasskeyService, claims: &AccessTokenClaims) -> Passkey {
    let options = run(passkeys.registration_options(claims)).unwrap();
    run(passkeys.registration_verify(claims, options.challenge_id, &json!({}))).unwrap()
}

#[test]
fn registering_keeps_the_ceremony_server_side_and_stores_the_passkey_with_a_notice() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims]);
    let options = run(passkeys.registration_options(&claims)).unwrap();
    assert_eq!(options.options, json!({"challenge": "c-reg"}));
    assert_eq!(options.expires_at, noon() + Duration::seconds(CHALLENGE_TTL_SECS));
    let kept = store.challenges.lock().unwrap().clone();
    assert_eq!(kept.len(), 1);
    assert_eq!(
        (kept[0].user_id, kept[0].state.as_str()),
        (Some(claims.sub), "reg-state")
    );
    let passkey = run(passkeys.registration_verify(&claims, options.challenge_id, &json!({}))).unwrap();
    assert_eq!(
        (passkey.credential_id.as_str(), passkey.sign_count),
        ("cred-1", 0)
    );
    assert_eq!(passkey.display_name(), "Passkey");
    assert!(store.challenges.lock().unwrap().is_empty());
    let outbox = store.outbox.lock().unwrap();
    assert_eq!(outbox.len(), 1);
    assert!(
        outbox[0]
            .subject
            .starts_with("A passkey was added to your account")
    );
}

#[test]
fn a_registration_challenge_works_once_and_only_for_its_account() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims]);
    let options = run(passkeys.registration_options(&claims)).unwrap();
    let mut stranger = access_claims(noon());
    stranger.sub = UserId::new();
    assert!(matches!(
        run(passkeys.registration_verify(&stranger, options.challenge_id, &json!({}))),
        Err(IdentityError::WebAuthnChallengeNotFound)
    ));
    run(passkeys.registration_verify(&claims, options.challenge_id, &json!({}))).unwrap();
    assert!(matches!(
        run(passkeys.registration_verify(&aal2(claims), options.challenge_id, &json!({}))),
        Err(IdentityError::WebAuthnChallengeNotFound)
    ));
}

#[test]
fn a_ceremony_older_than_five_minutes_is_refused() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims]);
    let old = WebAuthnChallenge {
        id: Uuid::new_v4(),
        user_id: Some(claims.sub),
        kind: CeremonyKind::Registration,
        state: "reg-state".into(),
        created_at: noon() - Duration::seconds(CHALLENGE_TTL_SECS),
    };
    store.challenges.lock().unwrap().push(old.clone());
    assert!(matches!(
        run(passkeys.registration_verify(&claims, old.id, &json!({}))),
        Err(IdentityError::WebAuthnChallengeExpired)
    ));
    assert!(store.passkeys.lock().unwrap().is_empty());
}

#[test]
fn a_second_passkey_needs_an_aal2_session_and_the_same_credential_is_not_registered_twice() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    // Another session of the account, which passed a second factor.
    let raised = raised(&claims);
    let passkeys = service(m, ceremony, &store, &[&claims, &raised]);
    register(&passkeys, &claims);
    assert!(matches!(
        run(passkeys.registration_options(&claims)),
        Err(IdentityError::Aal2RequiredForPasskeys)
    ));
    let options = run(passkeys.registration_options(&raised)).unwrap();
    assert!(matches!(
        run(passkeys.registration_verify(&raised, options.challenge_id, &json!({}))),
        Err(IdentityError::WebAuthnCredentialExists)
    ));
}

#[test]
fn an_account_holds_at_most_ten_passkeys() {
    let claims = aal2(access_claims(noon()));
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims]);
    for n in 0..MAX_PASSKEYS {
        store.passkeys.lock().unwrap().push(Passkey {
            id: Uuid::new_v4(),
            user_id: claims.sub,
            credential_id: format!("other-{n}"),
            public_key: String::new(),
            sign_count: 0,
            friendly_name: None,
            created_at: noon(),
            last_used_at: None,
        });
    }
    assert!(matches!(
        run(passkeys.registration_options(&claims)),
        Err(IdentityError::TooManyPasskeys)
    ));
}

#[test]
fn signing_in_with_a_passkey_answers_a_session_at_aal2_and_records_the_count() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 5);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims]);
    let passkey = register(&passkeys, &claims);
    let options = run(passkeys.authentication_options(crate::identity::test_support::CLIENT)).unwrap();
    assert_eq!(
        store.challenges.lock().unwrap()[0].user_id,
        None,
        "a sign-in's ceremony belongs to nobody yet"
    );
    let claim = run(passkeys.identify(crate::identity::test_support::CLIENT, &json!({}))).unwrap();
    assert_eq!(claim.account.id, claims.sub);
    let session =
        run(passkeys.sign_in(Guarded::for_tests(), options.challenge_id, &json!({}), claim)).unwrap();
    assert_eq!(session.user.account.id, claims.sub);
    let stored = store.passkeys.lock().unwrap()[0].clone();
    assert_eq!((stored.sign_count, stored.last_used_at), (5, Some(noon())));
    assert_eq!(stored.id, passkey.id);
    // The challenge worked once.
    let again = run(passkeys.identify(crate::identity::test_support::CLIENT, &json!({}))).unwrap();
    assert!(matches!(
        run(passkeys.sign_in(Guarded::for_tests(), options.challenge_id, &json!({}), again)),
        Err(IdentityError::WebAuthnChallengeNotFound)
    ));
}

#[test]
fn a_passkey_session_is_aal2_with_amr_passkey_once() {
    use crate::identity::sessions::tokens::{AccessGrant, AccessTokenClaims as Claims};
    let address = crate::identity::test_support::email("dev@example.com");
    let claims = Claims::issue(
        AccessGrant {
            user_id: UserId::new(),
            email: &address,
            session_id: Uuid::new_v4(),
            method: AuthMethod::Passkey,
            authenticated_at: noon(),
            providers: vec!["email".into()],
            user_metadata: json!({}),
            second_step: Some(crate::identity::models::SecondStep {
                method: SecondFactorMethod::Passkey,
                factor_id: Some(Uuid::new_v4()),
                at: noon(),
            }),
        },
        "https://portal.test/auth/v1",
        noon(),
    );
    assert_eq!(claims.aal, "aal2");
    let methods: Vec<&str> = claims.amr.iter().map(|e| e.method.as_str()).collect();
    assert_eq!(methods, ["passkey"]);
}

#[test]
fn a_sign_count_that_does_not_grow_is_refused_as_a_possible_clone() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 3);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims]);
    register(&passkeys, &claims);
    store.passkeys.lock().unwrap()[0].sign_count = 3;
    let options = run(passkeys.authentication_options(crate::identity::test_support::CLIENT)).unwrap();
    let claim = run(passkeys.identify(crate::identity::test_support::CLIENT, &json!({}))).unwrap();
    assert!(matches!(
        run(passkeys.sign_in(Guarded::for_tests(), options.challenge_id, &json!({}), claim)),
        Err(IdentityError::WebAuthnVerificationFailed)
    ));
    assert_eq!(store.passkeys.lock().unwrap()[0].last_used_at, None);
}

#[test]
fn the_sign_count_rule_lets_counterless_authenticators_through() {
    let mut passkey = Passkey {
        id: Uuid::new_v4(),
        user_id: UserId::new(),
        credential_id: "c".into(),
        public_key: String::new(),
        sign_count: 0,
        friendly_name: None,
        created_at: noon(),
        last_used_at: None,
    };
    assert!(passkey.sign_count_follows(0));
    assert!(passkey.sign_count_follows(1));
    passkey.sign_count = 7;
    assert!(!passkey.sign_count_follows(0));
    assert!(!passkey.sign_count_follows(7));
    assert!(passkey.sign_count_follows(8));
}

#[test]
fn an_unknown_credential_or_another_accounts_user_handle_is_refused() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims]);
    assert!(matches!(
        run(passkeys.identify(crate::identity::test_support::CLIENT, &json!({}))),
        Err(IdentityError::WebAuthnVerificationFailed)
    ));
    let passkey = register(&passkeys, &claims);
    store.passkeys.lock().unwrap()[0].user_id = UserId::new();
    assert_ne!(store.passkeys.lock().unwrap()[0].user_id, passkey.user_id);
    assert!(matches!(
        run(passkeys.identify(crate::identity::test_support::CLIENT, &json!({}))),
        Err(IdentityError::WebAuthnVerificationFailed)
    ));
}

#[test]
fn removing_a_passkey_needs_aal2_and_tells_the_owner() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    // Another session of the account, which passed a second factor.
    let raised = raised(&claims);
    let passkeys = service(m, ceremony, &store, &[&claims, &raised]);
    let passkey = register(&passkeys, &claims);
    assert!(matches!(
        run(passkeys.delete(&claims, passkey.id)),
        Err(IdentityError::Aal2RequiredForPasskeys)
    ));
    assert!(matches!(
        run(passkeys.delete(&raised, Uuid::new_v4())),
        Err(IdentityError::PasskeyNotFound)
    ));
    run(passkeys.delete(&raised, passkey.id)).unwrap();
    assert!(store.passkeys.lock().unwrap().is_empty());
    let outbox = store.outbox.lock().unwrap();
    assert!(
        outbox
            .last()
            .unwrap()
            .subject
            .starts_with("A passkey was removed from your account")
    );
}

#[test]
fn renaming_trims_the_name_and_refuses_an_empty_or_long_one() {
    let claims = access_claims(noon());
    // A name is not a way in: the session that added the passkey names it, at aal1.
    let owner = claims.clone();
    let stranger = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims, &stranger]);
    let passkey = register(&passkeys, &claims);
    let renamed = run(passkeys.rename(&owner, passkey.id, "  Laptop  ")).unwrap();
    assert_eq!(renamed.friendly_name.as_deref(), Some("Laptop"));
    for bad in ["   ", &"x".repeat(MAX_NAME_CHARS + 1), "two\nlines"] {
        assert!(matches!(
            run(passkeys.rename(&owner, passkey.id, bad)),
            Err(IdentityError::Validation(_))
        ));
    }
    assert!(matches!(
        run(passkeys.rename(&stranger, passkey.id, "Mine")),
        Err(IdentityError::PasskeyNotFound)
    ));
}

#[test]
fn the_operators_reset_removes_every_passkey_of_the_account_and_tells_the_owner() {
    let claims = access_claims(noon());
    let (m, ceremony) = mocks_for(&claims, 1);
    let store = Arc::new(InMemoryPasskeys::default());
    let passkeys = service(m, ceremony, &store, &[&claims]);
    register(&passkeys, &claims);
    let mut owner = account("dev@example.com", true);
    owner.id = claims.sub;
    let removed = run(operator_remove_all(
        store.as_ref(),
        &owner,
        "https://portal.test",
        noon(),
    ))
    .unwrap();
    assert_eq!(removed.len(), 1);
    assert!(store.passkeys.lock().unwrap().is_empty());
    assert_eq!(store.outbox.lock().unwrap().len(), 2, "added, then removed");
}
