use crate::identity::attempts::Guarded;
use crate::identity::services::IdentityServices;
use chrono::Duration;
use mockall::predicate::eq;
use std::sync::Arc;

use super::totp::TotpSecret;
use super::*;
use crate::identity::models::RefreshToken;
use crate::identity::sessions::Session;
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::identity::test_support::{Mocks, access_claims, account, digest_key, raised};
use crate::testing::noon;

const IP: &str = "203.0.113.9";

fn enroll() -> EnrollRequest<'static> {
    EnrollRequest {
        factor_type: "totp",
        friendly_name: Some("Phone"),
        issuer: None,
    }
}

/// Mocks where `claims`'s account exists and its session's head is live (also as the assurance rule reads
/// it, with the account's factors).
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
    m.links.expect_list_for_user().returning(|_| Ok(vec![]));
    m
}

/// [`mocks_for`], where the other `aal1` sessions may be ended.
fn mocks_ending_sessions(claims: &AccessTokenClaims) -> Mocks {
    let mut m = mocks_for(claims);
    m.session_list
        .expect_end_aal1_sessions()
        .returning(|_, _, _, _| Ok(0));
    m
}

impl Enrollment {
    fn totp(self) -> TotpEnrollment {
        match self {
            Self::Totp(totp) => totp,
            Self::WebAuthn(factor) => panic!("a webauthn factor: {factor:?}"),
        }
    }
}

fn secret_of(factor: &Factor) -> TotpSecret {
    TotpSecret::open(&digest_key(), factor.id, &factor.sealed_secret).unwrap()
}

#[test]
fn enrolling_answers_the_secret_once_and_stores_it_sealed() {
    let claims = access_claims(noon());
    let m = mocks_for(&claims);
    let store = m.factors.clone();
    let service = m.service();
    let enrolled = futures::executor::block_on(service.factors.enroll_factor(&claims, enroll()))
        .unwrap()
        .totp();
    assert_eq!(enrolled.factor.status, FactorStatus::Unverified);
    assert!(
        enrolled
            .uri
            .starts_with("otpauth://totp/portal.test:dev%40example.com?"),
        "{}",
        enrolled.uri
    );
    let stored = store.factors.lock().unwrap()[0].clone();
    assert!(!stored.sealed_secret.contains(&enrolled.secret));
    assert_eq!(secret_of(&stored).base32(), enrolled.secret);
}

#[test]
fn an_unknown_factor_type_is_refused_and_webauthn_needs_a_relying_party() {
    let claims = access_claims(noon());
    let service = mocks_for(&claims).service();
    let refused = |factor_type: &'static str| {
        futures::executor::block_on(service.factors.enroll_factor(
            &claims,
            EnrollRequest {
                factor_type,
                friendly_name: None,
                issuer: None,
            },
        ))
        .unwrap_err()
        .error_code()
    };
    assert_eq!(refused("sms"), "validation_failed");
    assert_eq!(refused("webauthn"), "mfa_webauthn_enroll_not_enabled");
    assert_eq!(refused("phone"), "mfa_phone_enroll_not_enabled");
}

#[test]
fn a_second_factor_of_the_same_name_is_refused() {
    let claims = access_claims(noon());
    let service = mocks_for(&claims).service();
    futures::executor::block_on(service.factors.enroll_factor(&claims, enroll()))
        .unwrap()
        .totp();
    let again = futures::executor::block_on(service.factors.enroll_factor(&claims, enroll())).unwrap_err();
    assert_eq!(again.error_code(), "mfa_factor_name_conflict");
}

/// Enrolls and verifies a factor; answers the store, the factor, the service, the `aal1` session that
/// enrolled it (its live head is not raised here) and another session of the account that passed it.
fn verified_factor() -> (
    Arc<crate::identity::test_support::InMemoryFactors>,
    Factor,
    IdentityServices,
    AccessTokenClaims,
    AccessTokenClaims,
) {
    let claims = access_claims(noon());
    let aal2 = raised(&claims);
    let mut m = mocks_ending_sessions(&claims);
    m.live_session(&aal2, false);
    m.refresh_tokens.expect_rotate().returning(|_, _, _| Ok(()));
    m.signer
        .expect_sign_access()
        .returning(|_| Ok("access-token".into()));
    let store = m.factors.clone();
    let service = m.service();
    let enrolled = futures::executor::block_on(service.factors.enroll_factor(&claims, enroll()))
        .unwrap()
        .totp();
    let challenge = futures::executor::block_on(service.factors.challenge_factor(
        Guarded::for_tests(),
        &claims,
        enrolled.factor.id,
        IP,
        &RelyingPartyClaim::default(),
    ))
    .unwrap()
    .challenge;
    let code = secret_of(&enrolled.factor).code_at(noon().timestamp()).unwrap();
    futures::executor::block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        enrolled.factor.id,
        challenge.id,
        FactorAnswer::Code(&code),
        IP,
    ))
    .unwrap();
    let factor = store.factors.lock().unwrap()[0].clone();
    (store, factor, service, claims, aal2)
}

#[test]
fn confirming_a_new_factor_tells_the_owner_and_removing_it_tells_again() {
    let (store, factor, service, _, raised) = verified_factor();
    let added = store.notices.lock().unwrap().clone();
    assert_eq!(added.len(), 1, "one e-mail for the confirmation");
    assert_eq!(added[0].kind, crate::mail::EmailKind::SecurityNotice);
    assert!(
        added[0].text.contains("was added to your account"),
        "{}",
        added[0].text
    );
    assert_eq!(
        added[0].link.as_deref(),
        Some("https://portal.test/account/security")
    );
    // A session that passed the factor is aal2: it may remove the factor, and the owner is told.
    futures::executor::block_on(service.factors.unenroll_factor(&raised, factor.id)).unwrap();
    let notices = store.notices.lock().unwrap().clone();
    assert_eq!(notices.len(), 2);
    assert!(
        notices[1].text.contains("was removed from your account"),
        "{}",
        notices[1].text
    );
}

#[test]
fn a_right_code_verifies_the_factor_and_raises_the_session_to_aal2() {
    let claims = access_claims(noon());
    let mut m = mocks_for(&claims);
    m.refresh_tokens
        .expect_rotate()
        .withf(|old, new, _| old == "head-hash" && new.second_step.is_some())
        .times(1)
        .returning(|_, _, _| Ok(()));
    m.signer
        .expect_sign_access()
        .withf(|claims| {
            claims.aal == "aal2" && claims.amr[0].method == "totp" && claims.amr[1].method == "password"
        })
        .returning(|_| Ok("aal2-token".into()));
    // Whoever had only the password keeps no session once a factor is confirmed.
    m.session_list
        .expect_end_aal1_sessions()
        .with(eq(claims.sub), eq(Some(claims.session_id)), eq(noon()), eq(None))
        .times(1)
        .returning(|_, _, _, _| Ok(1));
    let store = m.factors.clone();
    let service = m.service();
    let enrolled = futures::executor::block_on(service.factors.enroll_factor(&claims, enroll()))
        .unwrap()
        .totp();
    let challenge = futures::executor::block_on(service.factors.challenge_factor(
        Guarded::for_tests(),
        &claims,
        enrolled.factor.id,
        IP,
        &RelyingPartyClaim::default(),
    ))
    .unwrap()
    .challenge;
    assert_eq!(challenge.expires_at(), noon() + Duration::seconds(300));
    let code = secret_of(&enrolled.factor).code_at(noon().timestamp()).unwrap();
    let session = futures::executor::block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        enrolled.factor.id,
        challenge.id,
        FactorAnswer::Code(&code),
        IP,
    ))
    .unwrap();
    assert_eq!(session.access_token, "aal2-token");
    assert_eq!(session.user.factors.len(), 1);
    assert!(store.factors.lock().unwrap()[0].is_verified());
}

#[test]
fn a_code_works_once_even_with_a_new_challenge() {
    let (_, factor, service, claims, _) = verified_factor();
    let challenge = futures::executor::block_on(service.factors.challenge_factor(
        Guarded::for_tests(),
        &claims,
        factor.id,
        IP,
        &RelyingPartyClaim::default(),
    ))
    .unwrap()
    .challenge;
    let code = secret_of(&factor).code_at(noon().timestamp()).unwrap();
    let again = futures::executor::block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        factor.id,
        challenge.id,
        FactorAnswer::Code(&code),
        IP,
    ));
    assert_eq!(again.unwrap_err().error_code(), "mfa_verification_failed");
    // An earlier step's code (still within the drift) is refused too.
    let earlier = secret_of(&factor).code_at(noon().timestamp() - 30).unwrap();
    let again = futures::executor::block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        factor.id,
        challenge.id,
        FactorAnswer::Code(&earlier),
        IP,
    ));
    assert_eq!(again.unwrap_err().error_code(), "mfa_verification_failed");
}

#[test]
fn a_wrong_code_another_address_or_an_old_challenge_is_refused() {
    let claims = access_claims(noon());
    let m = mocks_for(&claims);
    let store = m.factors.clone();
    let service = m.service();
    let enrolled = futures::executor::block_on(service.factors.enroll_factor(&claims, enroll()))
        .unwrap()
        .totp();
    let id = enrolled.factor.id;
    let challenge = futures::executor::block_on(service.factors.challenge_factor(
        Guarded::for_tests(),
        &claims,
        id,
        IP,
        &RelyingPartyClaim::default(),
    ))
    .unwrap()
    .challenge;
    let code = secret_of(&enrolled.factor).code_at(noon().timestamp()).unwrap();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let code_of = |result: Result<Session, IdentityError>| result.unwrap_err().error_code();
    assert_eq!(
        code_of(futures::executor::block_on(service.factors.verify_factor(
            Guarded::for_tests(),
            &claims,
            id,
            challenge.id,
            FactorAnswer::Code(wrong),
            IP
        ))),
        "mfa_verification_failed"
    );
    assert_eq!(
        code_of(futures::executor::block_on(service.factors.verify_factor(
            Guarded::for_tests(),
            &claims,
            id,
            challenge.id,
            FactorAnswer::Code(&code),
            "198.51.100.1"
        ))),
        "mfa_ip_address_mismatch"
    );
    assert_eq!(
        code_of(futures::executor::block_on(service.factors.verify_factor(
            Guarded::for_tests(),
            &claims,
            id,
            Uuid::new_v4(),
            FactorAnswer::Code(&code),
            IP
        ))),
        "mfa_factor_not_found"
    );
    store.challenges.lock().unwrap()[0].created_at = noon() - Duration::seconds(300);
    assert_eq!(
        code_of(futures::executor::block_on(service.factors.verify_factor(
            Guarded::for_tests(),
            &claims,
            id,
            challenge.id,
            FactorAnswer::Code(&code),
            IP
        ))),
        "mfa_challenge_expired"
    );
    assert!(store.challenges.lock().unwrap().is_empty());
    // Another account's factor is not found.
    let stranger = access_claims(noon());
    assert_eq!(
        futures::executor::block_on(service.factors.challenge_factor(
            Guarded::for_tests(),
            &stranger,
            id,
            IP,
            &RelyingPartyClaim::default()
        ))
        .unwrap_err()
        .error_code(),
        "mfa_factor_not_found"
    );
}

#[test]
fn a_verified_factor_needs_aal2_to_be_removed_or_joined_by_another() {
    let (store, factor, service, claims, raised) = verified_factor();
    let refused =
        futures::executor::block_on(service.factors.unenroll_factor(&claims, factor.id)).unwrap_err();
    assert_eq!(refused.error_code(), "insufficient_aal");
    let another = EnrollRequest {
        factor_type: "totp",
        friendly_name: Some("Tablet"),
        issuer: None,
    };
    let refused = futures::executor::block_on(service.factors.enroll_factor(&claims, another)).unwrap_err();
    assert!(matches!(refused, IdentityError::Aal2RequiredToEnroll));
    assert_eq!(
        futures::executor::block_on(service.factors.unenroll_factor(&raised, factor.id)).unwrap(),
        factor.id
    );
    assert!(store.factors.lock().unwrap().is_empty());
}

fn reset_notice() -> super::ResetNotice<'static> {
    super::ResetNotice {
        public_url: "https://portal.test",
        at: crate::testing::noon(),
    }
}

#[test]
fn the_operator_reset_removes_every_factor_of_the_account_only() {
    let (store, factor, _, _, _) = verified_factor();
    store.notices.lock().unwrap().clear();
    let mut other = factor.clone();
    other.id = Uuid::new_v4();
    other.user_id = crate::common::UserId::new();
    store.factors.lock().unwrap().push(other.clone());
    let mut accounts = crate::identity::ports::MockAccountRepository::new();
    let mut owner = account("dev@example.com", true);
    owner.id = factor.user_id;
    accounts
        .expect_find_by_email()
        .returning(move |address| Ok((address.as_str() == "dev@example.com").then(|| owner.clone())));
    let removed = futures::executor::block_on(operator_reset(
        &accounts,
        store.as_ref(),
        " Dev@Example.com ",
        &reset_notice(),
    ))
    .unwrap();
    assert_eq!(removed.iter().map(|f| f.id).collect::<Vec<_>>(), vec![factor.id]);
    assert_eq!(*store.factors.lock().unwrap(), vec![other]);
    // The owner is told once.
    let notices = store.notices.lock().unwrap().clone();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].to.as_str(), "dev@example.com");
    assert!(
        notices[0].text.contains("removed by the portal's operator"),
        "{}",
        notices[0].text
    );
    assert!(matches!(
        futures::executor::block_on(operator_reset(
            &accounts,
            store.as_ref(),
            "nobody@example.com",
            &reset_notice()
        )),
        Err(FactorResetError::NoAccount(_))
    ));
    assert!(matches!(
        futures::executor::block_on(operator_reset(
            &accounts,
            store.as_ref(),
            "not an address",
            &reset_notice()
        )),
        Err(FactorResetError::InvalidEmail(_))
    ));
}

#[test]
fn a_code_from_a_session_that_ended_meanwhile_is_not_checked() {
    // The session that asked for the challenge ended before its answer was checked (the account's
    // second-factor ceiling was reached by another answer, or its owner signed out everywhere).
    let claims = access_claims(noon());
    let mut m = Mocks::new();
    m.live_session(&claims, false);
    let mut stored = account("dev@example.com", true);
    stored.id = claims.sub;
    m.accounts
        .expect_get()
        .returning(move |_| Ok(Some(stored.clone())));
    m.refresh_tokens
        .expect_current_of_family()
        .returning(|_| Ok(None));
    m.links.expect_list_for_user().returning(|_| Ok(vec![]));
    let service = m.service();
    let enrolled = futures::executor::block_on(service.factors.enroll_factor(&claims, enroll()))
        .unwrap()
        .totp();
    let id = enrolled.factor.id;
    let challenge = futures::executor::block_on(service.factors.challenge_factor(
        Guarded::for_tests(),
        &claims,
        id,
        IP,
        &RelyingPartyClaim::default(),
    ))
    .unwrap()
    .challenge;
    let code = secret_of(&enrolled.factor).code_at(noon().timestamp()).unwrap();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let answer = futures::executor::block_on(service.factors.verify_factor(
        Guarded::for_tests(),
        &claims,
        id,
        challenge.id,
        FactorAnswer::Code(wrong),
        IP,
    ));
    assert!(
        matches!(answer, Err(IdentityError::SessionNotFound)),
        "{answer:?}"
    );
}
