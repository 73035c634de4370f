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

#[test]
fn a_host_name_is_its_own_relying_party() {
    let rp = RelyingParty::of("https://portal.example.com/").unwrap();
    assert_eq!(rp.id, "portal.example.com");
    assert_eq!(rp.origin_text(), "https://portal.example.com");
    let rp = RelyingParty::of("http://localhost:8080").unwrap();
    assert_eq!(
        (rp.id.as_str(), rp.origin_text().as_str()),
        ("localhost", "http://localhost:8080")
    );
}

#[test]
fn a_loopback_address_serves_passkeys_as_localhost_on_the_same_port() {
    for url in [
        "http://127.0.0.1:8080",
        "http://127.0.0.1:8080/",
        "http://[::1]:8080",
    ] {
        let rp = RelyingParty::of(url).unwrap();
        assert_eq!(rp.id, "localhost", "{url}");
        assert_eq!(rp.origin_text(), "http://localhost:8080", "{url}");
    }
    let start = WebAuthnRs::new("http://127.0.0.1:8080", "Developer portal")
        .unwrap()
        .start_registration(UserId::new(), "dev@example.com", &[])
        .unwrap();
    assert_eq!(start.options["rp"]["id"], "localhost");
}

#[test]
fn another_ip_address_serves_no_passkeys() {
    for url in ["http://192.0.2.10:8080", "https://[2001:db8::1]", "not a url"] {
        assert!(RelyingParty::of(url).is_err(), "{url}");
    }
}

#[test]
fn a_loopback_public_url_accepts_a_ceremony_at_localhost() {
    let rp = WebAuthnRs::new("http://127.0.0.1:8080", "Developer portal").unwrap();
    let user = UserId::new();
    let start = rp.start_registration(user, "dev@example.com", &[]).unwrap();
    let mut authenticator = SoftAuthenticator::new("http://localhost:8080");
    let answer = authenticator.register(&start.options);
    assert!(rp.finish_registration(&start.state, &answer).is_ok());
    // The page at the IP address itself cannot make a passkey for `localhost`: such an answer is refused.
    let start = rp.start_registration(user, "dev@example.com", &[]).unwrap();
    let mut elsewhere = SoftAuthenticator::new("http://127.0.0.1:8080");
    let answer = elsewhere.register(&start.options);
    assert!(rp.finish_registration(&start.state, &answer).is_err());
}

#[test]
fn a_factor_credential_is_registered_then_asserted_with_its_one_credential() {
    let rp = rp();
    assert_eq!(
        rp.relying_party(),
        RelyingPartyInfo {
            id: "localhost".into(),
            origin: ORIGIN.into(),
        }
    );
    let start = rp
        .start_factor_registration(UserId::new(), "dev@example.com", &["AAAA".to_owned()])
        .unwrap();
    let selection = &start.options["authenticatorSelection"];
    assert_ne!(selection["residentKey"], "required");
    assert_eq!(selection["userVerification"], "preferred");
    assert_eq!(start.options["excludeCredentials"][0]["id"], "AAAA");
    assert!(start.options.get("hints").is_none(), "any authenticator");
    let mut authenticator = SoftAuthenticator::new(ORIGIN);
    let answer = authenticator.register(&start.options);
    let credential = rp.finish_factor_registration(&start.state, &answer).unwrap();
    assert_eq!(credential.credential_id, answer["id"]);

    let start = rp.start_factor_authentication(&credential.public_key).unwrap();
    assert_eq!(
        start.options["allowCredentials"][0]["id"],
        credential.credential_id.as_str()
    );
    let assertion = authenticator.authenticate(&start.options, 0);
    let verified = rp.finish_factor_authentication(&start.state, &assertion).unwrap();
    assert_eq!(verified.sign_count, 1);
    // The same answer to another ceremony does not verify.
    let other = rp.start_factor_authentication(&credential.public_key).unwrap();
    assert!(matches!(
        rp.finish_factor_authentication(&other.state, &assertion),
        Err(CeremonyError::Rejected(_))
    ));
}

#[test]
fn another_credential_does_not_assert_a_factor() {
    let rp = rp();
    let mut mine = SoftAuthenticator::new(ORIGIN);
    let mut theirs = SoftAuthenticator::new(ORIGIN);
    let register = |authenticator: &mut SoftAuthenticator| {
        let start = rp
            .start_factor_registration(UserId::new(), "dev@example.com", &[])
            .unwrap();
        let answer = authenticator.register(&start.options);
        rp.finish_factor_registration(&start.state, &answer).unwrap()
    };
    let credential = register(&mut mine);
    register(&mut theirs);
    let start = rp.start_factor_authentication(&credential.public_key).unwrap();
    let foreign = theirs.authenticate(&start.options, 0);
    assert!(matches!(
        rp.finish_factor_authentication(&start.state, &foreign),
        Err(CeremonyError::Rejected(_))
    ));
}
