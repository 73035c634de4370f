//! Second factors: storage, the single-use compare-and-set of a verification, removal (which lowers the
//! sessions that passed the factor), and the session read that tells whether the account has one.

use crate::fixtures;
use adapter_db::repos::{DieselFactorRepository, DieselRefreshTokenRepository};
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::common::UserId;
use domain::identity::factors::{
    Factor, FactorCeremony, FactorCeremonyKind, FactorChallenge, FactorStatus, FactorType, FactorUse,
    WebAuthnCredential,
};
use domain::identity::models::{AuthMethod, RefreshToken, SecondFactorMethod, SecondStep};
use domain::identity::ports::{FactorRepository, RefreshTokenRepository};
use uuid::Uuid;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

pub(crate) fn factor(user: UserId, name: &str) -> Factor {
    Factor {
        id: Uuid::new_v4(),
        user_id: user,
        factor_type: FactorType::Totp,
        status: FactorStatus::Unverified,
        friendly_name: Some(name.to_owned()),
        sealed_secret: "v1:sealed".into(),
        last_used_step: None,
        created_at: noon(),
        updated_at: noon(),
        last_challenged_at: None,
        webauthn: None,
    }
}

fn challenge(factor: &Factor, at: DateTime<Utc>) -> FactorChallenge {
    FactorChallenge {
        id: Uuid::new_v4(),
        factor_id: factor.id,
        created_at: at,
        verified_at: None,
        ip_address: "203.0.113.9".into(),
        webauthn: None,
    }
}

contract! {
    async fn a_code_step_and_a_challenge_are_taken_once_and_verifying_removes_the_other_unverified(db) {
        let repo = DieselFactorRepository::new(db.clone());
        let user = fixtures::account(db, "f@example.com");
        let phone = factor(user, "Phone");
        let spare = factor(user, "Spare");
        repo.insert(&phone).await.unwrap();
        repo.insert(&spare).await.unwrap();
        assert_eq!(repo.list_for_user(user).await.unwrap().len(), 2);
        assert_eq!(repo.find(UserId::new(), phone.id).await.unwrap(), None, "another account's");

        let first = challenge(&phone, noon());
        repo.insert_challenge(&first).await.unwrap();
        assert_eq!(repo.find(user, phone.id).await.unwrap().unwrap().last_challenged_at, Some(noon()));
        assert_eq!(repo.find_challenge(phone.id, first.id).await.unwrap(), Some(first.clone()));
        assert_eq!(repo.find_challenge(spare.id, first.id).await.unwrap(), None);

        let added = || Some(crate::fixtures::notice("f@example.com", "factor added"));
        assert!(repo.complete_verification(phone.id, first.id, FactorUse::TotpStep(100), noon(), added()).await.unwrap());
        assert_eq!(crate::fixtures::notices(db).await, ["Security: factor added"]);
        let verified = repo.find(user, phone.id).await.unwrap().unwrap();
        assert_eq!((verified.status, verified.last_used_step), (FactorStatus::Verified, Some(100)));
        assert_eq!(repo.list_for_user(user).await.unwrap(), vec![verified.clone()], "the spare is gone");

        // The same challenge again, or the same (or an earlier) step with a new one: nothing changes.
        assert!(!repo.complete_verification(phone.id, first.id, FactorUse::TotpStep(101), noon(), added()).await.unwrap());
        assert_eq!(crate::fixtures::notices(db).await.len(), 1, "a refused verification writes no e-mail");
        let second = challenge(&phone, noon());
        repo.insert_challenge(&second).await.unwrap();
        assert!(!repo.complete_verification(phone.id, second.id, FactorUse::TotpStep(100), noon(), None).await.unwrap());
        assert!(!repo.complete_verification(phone.id, second.id, FactorUse::TotpStep(99), noon(), None).await.unwrap());
        assert_eq!(repo.find_challenge(phone.id, second.id).await.unwrap().unwrap().verified_at, None);
        assert!(repo.complete_verification(phone.id, second.id, FactorUse::TotpStep(101), noon(), None).await.unwrap());
    }

    async fn removing_a_factor_lowers_its_sessions_and_the_session_read_knows_of_verified_factors(db) {
        let repo = DieselFactorRepository::new(db.clone());
        let sessions = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "f@example.com");
        let phone = factor(user, "Phone");
        repo.insert(&phone).await.unwrap();
        let head = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        sessions.insert(&head).await.unwrap();
        let live = sessions.current_of_family_with_role(head.family_id).await.unwrap().unwrap();
        assert!(!live.protection.is_protected(), "an unverified factor does not count");

        let first = challenge(&phone, noon());
        repo.insert_challenge(&first).await.unwrap();
        assert!(repo.complete_verification(phone.id, first.id, FactorUse::TotpStep(7), noon(), None).await.unwrap());
        let step = SecondStep { method: SecondFactorMethod::Totp, factor_id: Some(phone.id), at: noon() };
        let later = noon() + Duration::minutes(1);
        let raised = head.raised("h2".into(), step, later);
        sessions.rotate("h1", &raised, later).await.unwrap();
        let live = sessions.current_of_family_with_role(head.family_id).await.unwrap().unwrap();
        assert!(live.protection.is_protected());
        assert_eq!(live.head.second_step, Some(step));
        // Rotation carries the second step.
        let next = live.head.successor("h3".into(), later);
        sessions.rotate("h2", &next, later).await.unwrap();
        assert_eq!(sessions.current_of_family(head.family_id).await.unwrap().unwrap().second_step, Some(step));

        let removed = || Some(crate::fixtures::notice("f@example.com", "factor removed"));
        assert!(!repo.delete(UserId::new(), phone.id, later, removed()).await.unwrap(), "only the owner removes it");
        assert!(crate::fixtures::notices(db).await.is_empty(), "nothing removed, nothing said");
        assert!(repo.delete(user, phone.id, later, removed()).await.unwrap());
        assert!(!repo.delete(user, phone.id, later, removed()).await.unwrap());
        assert_eq!(crate::fixtures::notices(db).await, ["Security: factor removed"]);
        let live = sessions.current_of_family_with_role(head.family_id).await.unwrap().unwrap();
        assert!(!live.protection.is_protected());
        assert_eq!(live.head.second_step, None, "the session dropped to aal1");
        assert_eq!(repo.find_challenge(phone.id, first.id).await.unwrap(), None);
    }

    async fn a_webauthn_factor_keeps_its_ceremony_and_takes_its_credential_once_and_each_counter_once(db) {
        let repo = DieselFactorRepository::new(db.clone());
        let user = fixtures::account(db, "w@example.com");
        let key = Factor { factor_type: FactorType::WebAuthn, sealed_secret: String::new(), ..factor(user, "YubiKey") };
        let spare = Factor { factor_type: FactorType::WebAuthn, sealed_secret: String::new(), ..factor(user, "Spare") };
        let phone = factor(user, "Phone");
        for f in [&key, &spare, &phone] {
            repo.insert(f).await.unwrap();
        }
        let create = FactorChallenge {
            webauthn: Some(FactorCeremony { kind: FactorCeremonyKind::Create, state: "{\"rs\":1}".into() }),
            ..challenge(&key, noon())
        };
        repo.insert_challenge(&create).await.unwrap();
        assert_eq!(repo.find_challenge(key.id, create.id).await.unwrap(), Some(create.clone()), "the state is kept");

        let credential = WebAuthnCredential { credential_id: "Y3JlZA".into(), public_key: "{\"cred\":1}".into(), sign_count: 0 };
        let registered = || FactorUse::WebAuthnRegistered(credential.clone());
        assert!(repo.complete_verification(key.id, create.id, registered(), noon(), None).await.unwrap());
        let verified = repo.find(user, key.id).await.unwrap().unwrap();
        assert_eq!((verified.status, verified.webauthn.clone()), (FactorStatus::Verified, Some(credential.clone())));
        let mut names: Vec<_> = repo.list_for_user(user).await.unwrap().into_iter().map(|f| f.friendly_name.unwrap()).collect();
        names.sort();
        assert_eq!(names, ["Phone", "YubiKey"], "the unverified webauthn spare is gone, the TOTP factor stays");

        // A second registration of the same factor (another challenge) takes nothing.
        let again = FactorChallenge {
            webauthn: Some(FactorCeremony { kind: FactorCeremonyKind::Create, state: "{}".into() }),
            ..challenge(&key, noon())
        };
        repo.insert_challenge(&again).await.unwrap();
        assert!(!repo.complete_verification(key.id, again.id, registered(), noon(), None).await.unwrap());

        // An assertion moves the counter once from the value it read.
        let request = || FactorChallenge {
            webauthn: Some(FactorCeremony { kind: FactorCeremonyKind::Request, state: "{}".into() }),
            ..challenge(&key, noon())
        };
        let first = request();
        repo.insert_challenge(&first).await.unwrap();
        assert!(repo.complete_verification(key.id, first.id, FactorUse::WebAuthnAsserted { old: 0, new: 5 }, noon(), None).await.unwrap());
        let second = request();
        repo.insert_challenge(&second).await.unwrap();
        assert!(!repo.complete_verification(key.id, second.id, FactorUse::WebAuthnAsserted { old: 0, new: 6 }, noon(), None).await.unwrap(), "a stale read of the counter");
        assert!(repo.complete_verification(key.id, second.id, FactorUse::WebAuthnAsserted { old: 5, new: 6 }, noon(), None).await.unwrap());
        assert_eq!(repo.find(user, key.id).await.unwrap().unwrap().webauthn.unwrap().sign_count, 6);
        assert!(!repo.complete_verification(key.id, first.id, FactorUse::WebAuthnAsserted { old: 6, new: 7 }, noon(), None).await.unwrap(), "a used challenge");
        assert!(repo.delete(user, key.id, noon(), None).await.unwrap());
        assert_eq!(repo.find_challenge(key.id, second.id).await.unwrap(), None);
    }
}
