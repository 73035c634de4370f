//! Second factors: storage, the single-use compare-and-set of a verification, removal (which lowers the
//! sessions that passed the factor), and the session read that tells whether the account has one.

use crate::fixtures;
use adapter_db::repos::{DieselFactorRepository, DieselRefreshTokenRepository};
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::common::UserId;
use domain::identity::factors::{Factor, FactorChallenge, FactorStatus, FactorType};
use domain::identity::models::{AuthMethod, RefreshToken, SecondFactorMethod, SecondStep};
use domain::identity::ports::{FactorRepository, RefreshTokenRepository};
use uuid::Uuid;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

fn factor(user: UserId, name: &str) -> Factor {
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
    }
}

fn challenge(factor: &Factor, at: DateTime<Utc>) -> FactorChallenge {
    FactorChallenge {
        id: Uuid::new_v4(),
        factor_id: factor.id,
        created_at: at,
        verified_at: None,
        ip_address: "203.0.113.9".into(),
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
        assert!(repo.complete_verification(phone.id, first.id, 100, noon(), added()).await.unwrap());
        assert_eq!(crate::fixtures::notices(db).await, ["Security: factor added"]);
        let verified = repo.find(user, phone.id).await.unwrap().unwrap();
        assert_eq!((verified.status, verified.last_used_step), (FactorStatus::Verified, Some(100)));
        assert_eq!(repo.list_for_user(user).await.unwrap(), vec![verified.clone()], "the spare is gone");

        // The same challenge again, or the same (or an earlier) step with a new one: nothing changes.
        assert!(!repo.complete_verification(phone.id, first.id, 101, noon(), added()).await.unwrap());
        assert_eq!(crate::fixtures::notices(db).await.len(), 1, "a refused verification writes no e-mail");
        let second = challenge(&phone, noon());
        repo.insert_challenge(&second).await.unwrap();
        assert!(!repo.complete_verification(phone.id, second.id, 100, noon(), None).await.unwrap());
        assert!(!repo.complete_verification(phone.id, second.id, 99, noon(), None).await.unwrap());
        assert_eq!(repo.find_challenge(phone.id, second.id).await.unwrap().unwrap().verified_at, None);
        assert!(repo.complete_verification(phone.id, second.id, 101, noon(), None).await.unwrap());
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
        assert!(!live.has_verified_factor, "an unverified factor does not count");

        let first = challenge(&phone, noon());
        repo.insert_challenge(&first).await.unwrap();
        assert!(repo.complete_verification(phone.id, first.id, 7, noon(), None).await.unwrap());
        let step = SecondStep { method: SecondFactorMethod::Totp, factor_id: Some(phone.id), at: noon() };
        let later = noon() + Duration::minutes(1);
        let raised = head.raised("h2".into(), step, later);
        sessions.rotate("h1", &raised, later).await.unwrap();
        let live = sessions.current_of_family_with_role(head.family_id).await.unwrap().unwrap();
        assert!(live.has_verified_factor);
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
        assert!(!live.has_verified_factor);
        assert_eq!(live.head.second_step, None, "the session dropped to aal1");
        assert_eq!(repo.find_challenge(phone.id, first.id).await.unwrap(), None);
    }
}
