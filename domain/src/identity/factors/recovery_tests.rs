use crate::identity::attempts::Guarded;
use crate::identity::services::IdentityServices;
use mockall::predicate::eq;
use std::sync::{Arc, Mutex};

use super::*;
use crate::identity::models::{AuthMethod, RefreshToken};
use crate::identity::ports::{FactorRepository, MockOneTimeCodeRepository, RecoveryCodeCounts};
use crate::identity::test_support::{Mocks, access_claims, account, config, digest_key};
use crate::testing::{block_on, noon};

fn aal2(mut claims: AccessTokenClaims) -> AccessTokenClaims {
    claims.aal = "aal2".into();
    claims
}

fn factor_of(user: UserId, factor_type: FactorType, name: &str) -> Factor {
    Factor {
        id: Uuid::new_v4(),
        user_id: user,
        factor_type,
        status: FactorStatus::Verified,
        friendly_name: Some(name.into()),
        sealed_secret: String::new(),
        webauthn: None,
        last_used_step: None,
        created_at: noon(),
        updated_at: noon(),
        last_challenged_at: None,
    }
}

/// Mocks where the account of `claims` has a verified TOTP factor and, when `with_set`, a set of codes; the
/// session of `claims` is live as the assurance rule reads it.
fn mocks_with(claims: &AccessTokenClaims, with_set: bool) -> (Mocks, Option<Factor>) {
    let mut m = Mocks::new();
    m.live_session(claims, false);
    block_on(
        m.factors
            .insert(&factor_of(claims.sub, FactorType::Totp, "Phone")),
    )
    .unwrap();
    let set = with_set.then(|| factor_of(claims.sub, FactorType::RecoveryCode, "Recovery codes"));
    if let Some(set) = &set {
        block_on(m.factors.insert(set)).unwrap();
    }
    (m, set)
}

/// A service whose random draws differ (so that the ten codes differ).
fn service_of(m: Mocks) -> IdentityServices {
    m.service_with_codes(config(), Arc::new(MockOneTimeCodeRepository::new()))
}

#[test]
fn recovery_codes_need_an_aal2_session_and_another_verified_factor() {
    let claims = access_claims(noon());
    let (m, _) = mocks_with(&claims, false);
    let service = service_of(m);
    let refused = block_on(service.factors.generate_recovery_codes(&claims, None)).unwrap_err();
    assert_eq!(refused.error_code(), "insufficient_aal");
    let raised = aal2(claims);
    let mut lonely = Mocks::new();
    lonely.live_session(&raised, false);
    let refused = block_on(service_of(lonely).factors.generate_recovery_codes(&raised, None)).unwrap_err();
    assert_eq!(refused.error_code(), "mfa_recovery_codes_sole_factor");
}

/// What one `replace` was given: the factor, `create`, the digests, and whether the owner was told.
type Replaced = (Factor, bool, Vec<String>, bool);

#[test]
fn a_new_set_is_ten_distinct_codes_stored_only_as_keyed_digests_and_the_owner_is_told() {
    let claims = aal2(access_claims(noon()));
    let (mut m, _) = mocks_with(&claims, false);
    let stored: Arc<Mutex<Vec<Replaced>>> = Arc::default();
    let seen = stored.clone();
    m.recovery_codes
        .expect_replace()
        .times(1)
        .returning(move |factor, create, hashes, _, notice| {
            let told = notice
                .as_ref()
                .is_some_and(|mail| mail.text.contains("new recovery codes were made"));
            seen.lock()
                .unwrap()
                .push((factor.clone(), create, hashes.to_vec(), told));
            Ok(())
        });
    let set = block_on(service_of(m).factors.generate_recovery_codes(&claims, None)).unwrap();
    assert_eq!(set.codes.len(), RECOVERY_CODE_COUNT);
    let mut distinct = set.codes.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), RECOVERY_CODE_COUNT);
    assert!(set.codes.iter().all(|c| c.len() == RECOVERY_CODE_CHARS));
    assert_eq!(set.factor.factor_type, FactorType::RecoveryCode);
    assert_eq!(set.factor.display_name(), "Recovery codes");
    let (factor, create, hashes, told) = stored.lock().unwrap()[0].clone();
    assert!(create && told);
    assert_eq!(factor.id, set.factor.id);
    for (code, hash) in set.codes.iter().zip(&hashes) {
        assert_ne!(code, hash);
        assert_eq!(*hash, digest_key().recovery_code(factor.id, code));
        assert_ne!(*hash, digest_secret(code), "keyed, not a plain digest");
    }
}

#[test]
fn a_second_set_is_refused_and_only_an_existing_set_is_regenerated() {
    let claims = aal2(access_claims(noon()));
    let (mut m, set) = mocks_with(&claims, true);
    let set_id = set.map(|f| f.id);
    m.recovery_codes
        .expect_replace()
        .withf(move |factor, create, hashes, _, _| {
            Some(factor.id) == set_id && !*create && hashes.len() == RECOVERY_CODE_COUNT
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let service = service_of(m);
    let twice = block_on(service.factors.generate_recovery_codes(&claims, None)).unwrap_err();
    assert_eq!(twice.error_code(), "mfa_verified_factor_exists");
    let again = block_on(service.factors.regenerate_recovery_codes(&claims)).unwrap();
    assert_eq!(Some(again.factor.id), set_id, "the set keeps its id");
    let (m, _) = mocks_with(&claims, false);
    let none = block_on(service_of(m).factors.regenerate_recovery_codes(&claims)).unwrap_err();
    assert!(matches!(none, IdentityError::FactorNotFound));
    // Another session of the account, with the password alone. (The assurance rule reads the session: an
    // aal1 session must be one of this protected account's, not a stranger's, to be refused for its level.)
    let (mut m, _) = mocks_with(&claims, true);
    let mut password_alone = access_claims(noon());
    password_alone.sub = claims.sub;
    m.live_session(&password_alone, false);
    let low = block_on(service_of(m).factors.regenerate_recovery_codes(&password_alone)).unwrap_err();
    assert_eq!(low.error_code(), "insufficient_aal");
}

/// Mocks where the session of `claims` is live and the account exists.
fn live_session(m: &mut Mocks, claims: &AccessTokenClaims) {
    let mut stored = account("dev@example.com", true);
    stored.id = claims.sub;
    m.accounts
        .expect_get()
        .returning(move |_| Ok(Some(stored.clone())));
    let mut head = RefreshToken::start("head-hash".into(), claims.sub, AuthMethod::Password, noon());
    head.family_id = claims.session_id;
    m.refresh_tokens
        .expect_current_of_family()
        .returning(move |_| Ok(Some(head.clone())));
    m.links.expect_list_for_user().returning(|_| Ok(vec![]));
    m.recovery_codes.expect_counts().returning(|_| {
        Ok(RecoveryCodeCounts {
            total: 10,
            remaining: 4,
        })
    });
}

#[test]
fn a_right_recovery_code_raises_the_session_to_aal2_and_ends_the_other_aal1_sessions() {
    let claims = access_claims(noon());
    let (mut m, set) = mocks_with(&claims, true);
    let set_id = set.map_or_else(Uuid::nil, |f| f.id);
    live_session(&mut m, &claims);
    let right = digest_key().recovery_code(set_id, "k4m9x7qp2ab8ht3z");
    m.recovery_codes
        .expect_use_code()
        .withf(move |factor, hash, at, notice| {
            *factor == set_id
                && *hash == right
                && *at == noon()
                && notice
                    .as_ref()
                    .is_some_and(|mail| mail.text.contains("3 unused codes left"))
        })
        .times(1)
        .returning(|_, _, _, _| Ok(true));
    m.refresh_tokens
        .expect_rotate()
        .withf(move |old, new, _| {
            old == "head-hash"
                && new.second_step.is_some_and(|step| {
                    step.method == SecondFactorMethod::RecoveryCode && step.factor_id == Some(set_id)
                })
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    m.session_list
        .expect_end_aal1_sessions()
        .with(eq(claims.sub), eq(Some(claims.session_id)), eq(noon()), eq(None))
        .times(1)
        .returning(|_, _, _, _| Ok(1));
    m.signer
        .expect_sign_access()
        .withf(|c| c.aal == "aal2" && c.amr[0].method == "mfa/recovery_code")
        .returning(|_| Ok("aal2-token".into()));
    let session = block_on(m.service().factors.verify_recovery_code(
        Guarded::for_tests(),
        &claims,
        " K4M9-X7QP-2AB8-HT3Z ",
    ))
    .unwrap();
    assert_eq!(session.access_token, "aal2-token");
    assert_eq!(session.session_id, claims.session_id);
}

#[test]
fn a_wrong_used_or_malformed_recovery_code_is_refused() {
    let claims = access_claims(noon());
    let (mut m, _) = mocks_with(&claims, true);
    live_session(&mut m, &claims);
    m.recovery_codes
        .expect_use_code()
        .times(1)
        .returning(|_, _, _, _| Ok(false));
    m.refresh_tokens.expect_rotate().never();
    let service = m.service();
    let used = block_on(service.factors.verify_recovery_code(
        Guarded::for_tests(),
        &claims,
        "k4m9x7qp2ab8ht3z",
    ))
    .unwrap_err();
    assert_eq!(used.error_code(), "mfa_verification_failed");
    let short = block_on(
        service
            .factors
            .verify_recovery_code(Guarded::for_tests(), &claims, "k4m9"),
    )
    .unwrap_err();
    assert!(matches!(short, IdentityError::RecoveryCodeInvalid));
    let (m, _) = mocks_with(&claims, false);
    let no_set = block_on(m.service().factors.verify_recovery_code(
        Guarded::for_tests(),
        &claims,
        "k4m9x7qp2ab8ht3z",
    ))
    .unwrap_err();
    assert!(matches!(no_set, IdentityError::FactorNotFound));
}

#[test]
fn the_recovery_code_factor_is_never_challenged() {
    let claims = access_claims(noon());
    let (m, set) = mocks_with(&claims, true);
    let set_id = set.map_or_else(Uuid::nil, |f| f.id);
    let refused = block_on(m.service().factors.challenge_factor(
        Guarded::for_tests(),
        &claims,
        set_id,
        "203.0.113.9",
        &Default::default(),
    ))
    .unwrap_err();
    assert!(matches!(refused, IdentityError::RecoveryCodesNotChallenged));
}

#[test]
fn typed_codes_ignore_case_spaces_and_dashes_and_codes_use_the_unambiguous_alphabet() {
    assert_eq!(
        canonical_recovery_code(" K4M9-X7QP 2ab8-ht3z\n"),
        "k4m9x7qp2ab8ht3z"
    );
    let code = recovery_code_from(&(0u8..=255).collect::<Vec<_>>());
    assert_eq!(code, "0123456789abcdef");
    let all = recovery_code_from(&[31; 16]);
    assert_eq!(all, "zzzzzzzzzzzzzzzz");
    assert!(!recovery_code_from(&(0u8..32).rev().collect::<Vec<_>>()).contains(['i', 'l', 'o', 'u']));
}
