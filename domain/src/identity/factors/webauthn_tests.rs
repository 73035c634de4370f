use crate::identity::attempts::Guarded;
use crate::identity::services::IdentityServices;
use mockall::predicate::eq;
use serde_json::json;
use std::sync::Arc;

use super::*;
use crate::identity::models::RefreshToken;
use crate::identity::ports::{
    CeremonyError, CeremonyStart, MockWebAuthnCeremony, RegisteredCredential, RelyingPartyInfo,
    VerifiedAssertion,
};
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::identity::test_support::{InMemoryFactors, Mocks, access_claims, account, raised};
use crate::testing::noon;

const IP: &str = "203.0.113.9";

fn rp() -> RelyingPartyClaim {
    RelyingPartyClaim {
        rp_id: Some("portal.test".into()),
        rp_origins: Some(vec!["https://portal.test".into()]),
    }
}

/// A ceremony of the relying party `portal.test` whose registrations answer the credential `cred-1`
/// (counter 0) and whose assertions answer the counter `asserted` (or are rejected when `None`).
fn ceremony(asserted: Option<u32>) -> MockWebAuthnCeremony {
    let mut c = MockWebAuthnCeremony::new();
    c.expect_relying_party().returning(|| RelyingPartyInfo {
        id: "portal.test".into(),
        origin: "https://portal.test".into(),
    });
    c.expect_start_factor_registration().returning(|_, _, exclude| {
        Ok(CeremonyStart {
            options: json!({"challenge": "reg", "excludeCredentials": exclude}),
            state: "registration-state".into(),
        })
    });
    c.expect_finish_factor_registration()
        .withf(|state, _| state == "registration-state")
        .returning(|_, _| {
            Ok(RegisteredCredential {
                credential_id: "cred-1".into(),
                public_key: "key-1".into(),
                sign_count: 0,
            })
        });
    c.expect_start_factor_authentication()
        .withf(|key| key == "key-1")
        .returning(|_| {
            Ok(CeremonyStart {
                options: json!({"challenge": "auth", "allowCredentials": [{"id": "cred-1"}]}),
                state: "authentication-state".into(),
            })
        });
    c.expect_finish_factor_authentication()
        .withf(|state, _| state == "authentication-state")
        .returning(move |_, _| match asserted {
            Some(sign_count) => Ok(VerifiedAssertion { sign_count }),
            None => Err(CeremonyError::Rejected("another credential".into())),
        });
    c
}

/// Mocks where `claims`'s account exists, its session's head is live (also as the assurance rule reads it,
/// with the account's factors) and may be raised.
fn mocks_for(claims: &AccessTokenClaims) -> Mocks {
    let mut m = Mocks::new();
    m.live_session(claims, false);
    let mut stored = account("dev@example.com", true);
    stored.id = claims.sub;
    m.accounts
        .expect_get()
        .returning(move |_| Ok(Some(stored.clone())));
    let mut head = RefreshToken::start(
        "head-hash".into(),
        claims.sub,
        crate::identity::AuthMethod::Password,
        noon(),
    );
    head.family_id = claims.session_id;
    m.refresh_tokens
        .expect_current_of_family()
        .with(eq(claims.session_id))
        .returning(move |_| Ok(Some(head.clone())));
    m.refresh_tokens.expect_rotate().returning(|_, _, _| Ok(()));
    m.links.expect_list_for_user().returning(|_| Ok(vec![]));
    m.session_list
        .expect_end_aal1_sessions()
        .returning(|_, _, _, _| Ok(0));
    m
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    futures::executor::block_on(future)
}

fn enroll_webauthn(service: &IdentityServices, claims: &AccessTokenClaims) -> Factor {
    let enrolled = block_on(service.factors.enroll_factor(
        claims,
        EnrollRequest {
            factor_type: "webauthn",
            friendly_name: Some("YubiKey"),
            issuer: None,
        },
    ))
    .unwrap();
    match enrolled {
        Enrollment::WebAuthn(factor) => factor,
        Enrollment::Totp(_) => panic!("a totp factor"),
    }
}

fn answer<'a>(
    kind: &'a str,
    relying_party: &'a RelyingPartyClaim,
    credential: &'a serde_json::Value,
) -> FactorAnswer<'a> {
    FactorAnswer::WebAuthn(WebAuthnAnswer {
        kind,
        relying_party,
        credential,
    })
}

/// A service with a webauthn factor enrolled and registered (its session raised by it), and another
/// session of the account that passed the factor.
fn registered(
    asserted: Option<u32>,
) -> (
    Arc<InMemoryFactors>,
    IdentityServices,
    AccessTokenClaims,
    Factor,
    AccessTokenClaims,
) {
    let claims = access_claims(noon());
    let aal2 = raised(&claims);
    let mut m = mocks_for(&claims);
    m.live_session(&aal2, false);
    m.signer
        .expect_sign_access()
        .returning(|claims| Ok(format!("{}:{}", claims.aal, claims.amr[0].method)));
    let store = m.factors.clone();
    m.webauthn = Some(Arc::new(ceremony(asserted)));
    let service = m.service();
    let factor = enroll_webauthn(&service, &claims);
    let started =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &claims, factor.id, IP, &rp()),
        )
        .unwrap();
    let credential = json!({"id": "cred-1"});
    block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        factor.id,
        started.challenge.id,
        answer("create", &rp(), &credential),
        IP,
    ))
    .unwrap();
    let factor = store.factors.lock().unwrap()[0].clone();
    (store, service, claims, factor, aal2)
}

#[test]
fn a_webauthn_factor_is_enrolled_unverified_without_a_credential() {
    let claims = access_claims(noon());
    let mut m = mocks_for(&claims);
    let store = m.factors.clone();
    m.webauthn = Some(Arc::new(ceremony(Some(1))));
    let service = m.service();
    let factor = enroll_webauthn(&service, &claims);
    assert_eq!(factor.factor_type, FactorType::WebAuthn);
    assert_eq!(factor.status, FactorStatus::Unverified);
    assert_eq!(factor.webauthn, None);
    assert_eq!(factor.display_name(), "YubiKey");
    assert_eq!(store.factors.lock().unwrap().len(), 1);
}

#[test]
fn without_a_relying_party_a_webauthn_factor_is_neither_enrolled_nor_challenged() {
    let claims = access_claims(noon());
    let m = mocks_for(&claims);
    let store = m.factors.clone();
    let service = m.service();
    let refused = block_on(service.factors.enroll_factor(
        &claims,
        EnrollRequest {
            factor_type: "webauthn",
            friendly_name: None,
            issuer: None,
        },
    ))
    .unwrap_err();
    assert_eq!(refused.error_code(), "mfa_webauthn_enroll_not_enabled");
    // One enrolled while passkeys were on.
    let factor = Factor {
        id: uuid::Uuid::new_v4(),
        user_id: claims.sub,
        factor_type: FactorType::WebAuthn,
        status: FactorStatus::Verified,
        friendly_name: None,
        sealed_secret: String::new(),
        last_used_step: None,
        created_at: noon(),
        updated_at: noon(),
        last_challenged_at: None,
        webauthn: Some(WebAuthnCredential {
            credential_id: "cred-1".into(),
            public_key: "key-1".into(),
            sign_count: 0,
        }),
    };
    store.factors.lock().unwrap().push(factor.clone());
    let refused =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &claims, factor.id, IP, &rp()),
        )
        .unwrap_err();
    assert_eq!(refused.error_code(), "mfa_webauthn_verify_not_enabled");
}

#[test]
fn the_first_challenge_registers_and_its_verification_stores_the_credential_at_aal2() {
    let claims = access_claims(noon());
    let mut m = mocks_for(&claims);
    m.signer
        .expect_sign_access()
        .withf(|claims| {
            claims.aal == "aal2"
                && claims.amr[0].method == "mfa/webauthn"
                && claims.amr[1].method == "password"
        })
        .returning(|_| Ok("aal2-token".into()));
    let store = m.factors.clone();
    m.webauthn = Some(Arc::new(ceremony(Some(1))));
    let service = m.service();
    let factor = enroll_webauthn(&service, &claims);
    let started =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &claims, factor.id, IP, &rp()),
        )
        .unwrap();
    let (kind, options) = started.webauthn.clone().unwrap();
    assert_eq!(kind, FactorCeremonyKind::Create);
    assert_eq!(options["challenge"], "reg");
    let kept = started.challenge.webauthn.clone().unwrap();
    assert_eq!(
        (kept.kind, kept.state.as_str()),
        (FactorCeremonyKind::Create, "registration-state")
    );
    assert_eq!(
        started.challenge.expires_at(),
        noon() + chrono::Duration::seconds(300)
    );
    let credential = json!({"id": "cred-1"});
    let session = block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        factor.id,
        started.challenge.id,
        answer("create", &rp(), &credential),
        IP,
    ))
    .unwrap();
    assert_eq!(session.access_token, "aal2-token");
    let stored = store.factors.lock().unwrap()[0].clone();
    assert!(stored.is_verified());
    assert_eq!(
        stored.webauthn,
        Some(WebAuthnCredential {
            credential_id: "cred-1".into(),
            public_key: "key-1".into(),
            sign_count: 0,
        })
    );
    let notices = store.notices.lock().unwrap().clone();
    assert_eq!(notices.len(), 1);
    assert!(notices[0].text.contains("YubiKey"), "{}", notices[0].text);
}

#[test]
fn a_verified_factor_is_asserted_with_its_one_credential_and_the_counter_must_grow() {
    let (store, service, claims, factor, _) = registered(Some(0));
    let started =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &claims, factor.id, IP, &rp()),
        )
        .unwrap();
    let (kind, options) = started.webauthn.clone().unwrap();
    assert_eq!(kind, FactorCeremonyKind::Request);
    assert_eq!(options["allowCredentials"][0]["id"], "cred-1");
    let credential = json!({"id": "cred-1"});
    // An authenticator that keeps no counter (both zero) passes.
    let session = block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        factor.id,
        started.challenge.id,
        answer("request", &rp(), &credential),
        IP,
    ))
    .unwrap();
    assert_eq!(session.access_token, "aal2:mfa/webauthn");
    // One that stands still after counting does not.
    store.factors.lock().unwrap()[0]
        .webauthn
        .as_mut()
        .unwrap()
        .sign_count = 5;
    let started =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &claims, factor.id, IP, &rp()),
        )
        .unwrap();
    let refused = block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        factor.id,
        started.challenge.id,
        answer("request", &rp(), &credential),
        IP,
    ))
    .unwrap_err();
    assert_eq!(refused.error_code(), "webauthn_verification_failed");
}

#[test]
fn an_assertion_moves_the_counter_and_a_used_challenge_is_not_found_again() {
    let (store, service, claims, factor, _) = registered(Some(3));
    let started =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &claims, factor.id, IP, &rp()),
        )
        .unwrap();
    let credential = json!({"id": "cred-1"});
    let verify = || {
        block_on(service.factors.verify_factor(
            Guarded::for_tests(),
            &claims,
            factor.id,
            started.challenge.id,
            answer("request", &rp(), &credential),
            IP,
        ))
    };
    verify().unwrap();
    assert_eq!(
        store.factors.lock().unwrap()[0]
            .webauthn
            .as_ref()
            .unwrap()
            .sign_count,
        3
    );
    assert_eq!(verify().unwrap_err().error_code(), "mfa_factor_not_found");
}

#[test]
fn another_credential_another_relying_party_or_another_type_is_refused() {
    let (_, service, claims, factor, _) = registered(None);
    let started =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &claims, factor.id, IP, &rp()),
        )
        .unwrap();
    let credential = json!({"id": "someone-elses"});
    let verify = |kind: &str, relying_party: &RelyingPartyClaim| {
        block_on(service.factors.verify_factor(
            Guarded::for_tests(),
            &claims,
            factor.id,
            started.challenge.id,
            answer(kind, relying_party, &credential),
            IP,
        ))
        .unwrap_err()
    };
    assert_eq!(
        verify("request", &rp()).error_code(),
        "webauthn_verification_failed"
    );
    assert_eq!(verify("create", &rp()).error_code(), "validation_failed");
    assert_eq!(verify("sign", &rp()).error_code(), "validation_failed");
    let foreign_id = RelyingPartyClaim {
        rp_id: Some("evil.test".into()),
        rp_origins: None,
    };
    let refused = verify("request", &foreign_id);
    assert_eq!(refused.error_code(), "validation_failed");
    assert!(refused.fields().unwrap().get("webauthn.rpId").is_some());
    let foreign_origin = RelyingPartyClaim {
        rp_id: Some("portal.test".into()),
        rp_origins: Some(vec!["https://portal.test".into(), "https://evil.test".into()]),
    };
    assert_eq!(
        verify("request", &foreign_origin).error_code(),
        "validation_failed"
    );
    let refused =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &claims, factor.id, IP, &foreign_id),
        )
        .unwrap_err();
    assert_eq!(refused.error_code(), "validation_failed");
    // A code is no answer to a webauthn factor.
    let refused = block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        factor.id,
        started.challenge.id,
        FactorAnswer::Code("123456"),
        IP,
    ))
    .unwrap_err();
    assert_eq!(refused.error_code(), "validation_failed");
}

#[test]
fn a_new_registration_excludes_the_accounts_other_credentials() {
    let (store, service, _, _, raised) = registered(Some(1));
    let second = enroll_webauthn_named(&service, &raised, "Backup key");
    let started =
        block_on(
            service
                .factors
                .challenge_factor(Guarded::for_tests(), &raised, second.id, IP, &rp()),
        )
        .unwrap();
    let (kind, options) = started.webauthn.unwrap();
    assert_eq!(kind, FactorCeremonyKind::Create);
    assert_eq!(options["excludeCredentials"], json!(["cred-1"]));
    assert_eq!(store.factors.lock().unwrap().len(), 2);
}

fn enroll_webauthn_named(service: &IdentityServices, claims: &AccessTokenClaims, name: &str) -> Factor {
    match block_on(service.factors.enroll_factor(
        claims,
        EnrollRequest {
            factor_type: "webauthn",
            friendly_name: Some(name),
            issuer: None,
        },
    ))
    .unwrap()
    {
        Enrollment::WebAuthn(factor) => factor,
        Enrollment::Totp(_) => panic!("a totp factor"),
    }
}
