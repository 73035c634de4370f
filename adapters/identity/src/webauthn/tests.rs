use super::soft::SoftAuthenticator;
use super::*;

const ORIGIN: &str = "http://localhost:8080";

fn rp() -> WebAuthnRs {
    WebAuthnRs::new(ORIGIN, "Developer portal").unwrap()
}

/// A registered passkey of a soft authenticator: the authenticator and what the server stored.
fn registered(rp: &WebAuthnRs) -> (SoftAuthenticator, RegisteredCredential, UserId) {
    let user = UserId::new();
    let start = rp.start_registration(user, "dev@example.com", &[]).unwrap();
    let mut authenticator = SoftAuthenticator::new(ORIGIN);
    let answer = authenticator.register(&start.options);
    let credential = rp.finish_registration(&start.state, &answer).unwrap();
    (authenticator, credential, user)
}

#[test]
fn registration_options_ask_for_a_discoverable_credential_with_user_verification() {
    let start = rp()
        .start_registration(UserId::new(), "dev@example.com", &[])
        .unwrap();
    let selection = &start.options["authenticatorSelection"];
    assert_eq!(selection["residentKey"], "required");
    assert_eq!(selection["requireResidentKey"], true);
    assert_eq!(selection["userVerification"], "required");
    assert_eq!(start.options["rp"]["id"], "localhost");
    assert_eq!(start.options["user"]["name"], "dev@example.com");
    assert!(start.options["challenge"].as_str().is_some_and(|c| c.len() >= 32));
}

#[test]
fn a_registered_passkey_signs_in_and_names_its_account() {
    let rp = rp();
    let (mut authenticator, credential, user) = registered(&rp);
    assert_eq!(credential.sign_count, 0);
    let start = rp.start_authentication().unwrap();
    assert_eq!(start.options["userVerification"], "required");
    assert!(
        start.options.get("allowCredentials").is_none()
            || start.options["allowCredentials"]
                .as_array()
                .is_some_and(Vec::is_empty)
    );
    let answer = authenticator.authenticate(&start.options, 0);
    let claim = rp.claim(&answer).unwrap();
    assert_eq!(claim.credential_id, credential.credential_id);
    assert_eq!(claim.user, Some(user));
    let verified = rp
        .finish_authentication(&start.state, &answer, &credential.public_key)
        .unwrap();
    assert_eq!(verified.sign_count, 1);
}

#[test]
fn an_answer_to_another_challenge_or_from_another_key_is_rejected() {
    let rp = rp();
    let (mut authenticator, credential, _) = registered(&rp);
    let first = rp.start_authentication().unwrap();
    let second = rp.start_authentication().unwrap();
    let answer = authenticator.authenticate(&first.options, 0);
    assert!(matches!(
        rp.finish_authentication(&second.state, &answer, &credential.public_key),
        Err(CeremonyError::Rejected(_))
    ));
    let (_, other, _) = registered(&rp);
    assert!(matches!(
        rp.finish_authentication(&first.state, &answer, &other.public_key),
        Err(CeremonyError::Rejected(_))
    ));
}

#[test]
fn an_answer_from_another_origin_is_rejected() {
    let rp = rp();
    let start = rp
        .start_registration(UserId::new(), "dev@example.com", &[])
        .unwrap();
    let answer = SoftAuthenticator::new("http://evil.test").register(&start.options);
    assert!(matches!(
        rp.finish_registration(&start.state, &answer),
        Err(CeremonyError::Rejected(_))
    ));
}

#[test]
fn a_sign_in_without_user_verification_is_rejected() {
    let rp = rp();
    let (mut authenticator, credential, _) = registered(&rp);
    authenticator.user_verified = false;
    let start = rp.start_authentication().unwrap();
    let answer = authenticator.authenticate(&start.options, 0);
    assert!(matches!(
        rp.finish_authentication(&start.state, &answer, &credential.public_key),
        Err(CeremonyError::Rejected(_))
    ));
}

#[test]
fn a_malformed_answer_is_rejected_and_a_broken_state_is_internal() {
    let rp = rp();
    assert!(matches!(
        rp.claim(&serde_json::json!({"id": 1})),
        Err(CeremonyError::Rejected(_))
    ));
    assert!(matches!(
        rp.finish_registration("not json", &serde_json::json!({})),
        Err(CeremonyError::Internal(_))
    ));
}
