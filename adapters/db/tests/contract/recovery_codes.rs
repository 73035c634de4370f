//! Recovery codes and the sessions list: a set made once and replaced whole, a code spent once (also when two
//! uses race), the set gone with its factor; the clients of sessions, the live sessions of an account,
//! ending one of them (the owner's only), and ending the `aal1` ones.

use crate::fixtures;
use adapter_db::repos::{
    DieselFactorRepository, DieselRecoveryCodeRepository, DieselRefreshTokenRepository,
    DieselSessionListRepository,
};
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::common::{RepoError, UserId};
use domain::identity::factors::{Factor, FactorStatus, FactorType};
use domain::identity::models::{AuthMethod, RefreshToken, SecondFactorMethod, SecondStep, SessionClient};
use domain::identity::ports::{
    FactorRepository, RecoveryCodeCounts, RecoveryCodeRepository, RefreshTokenRepository,
    SessionListRepository,
};
use uuid::Uuid;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

fn set_of(user: UserId) -> Factor {
    Factor {
        id: Uuid::new_v4(),
        user_id: user,
        factor_type: FactorType::RecoveryCode,
        status: FactorStatus::Verified,
        friendly_name: Some("Recovery codes".into()),
        sealed_secret: String::new(),
        last_used_step: None,
        created_at: noon(),
        updated_at: noon(),
        last_challenged_at: None,
        webauthn: None,
    }
}

fn hashes(prefix: &str) -> Vec<String> {
    (0..10).map(|i| format!("{prefix}-{i}")).collect()
}

const fn counts(total: usize, remaining: usize) -> RecoveryCodeCounts {
    RecoveryCodeCounts { total, remaining }
}

contract! {
    async fn a_set_is_made_once_replaced_whole_and_each_code_is_spent_once(db) {
        let repo = DieselRecoveryCodeRepository::new(db.clone());
        let factors = DieselFactorRepository::new(db.clone());
        let user = fixtures::account(db, "r@example.com");
        let set = set_of(user);
        let made = || Some(fixtures::notice("r@example.com", "codes made"));
        repo.replace(&set, true, &hashes("a"), noon(), made()).await.unwrap();
        assert_eq!(factors.list_for_user(user).await.unwrap(), vec![set.clone()]);
        assert_eq!(repo.counts(set.id).await.unwrap(), counts(10, 10));
        assert_eq!(fixtures::notices(db).await, ["Security: codes made"]);

        // A second set of the account is refused, and nothing of it is written.
        let other = set_of(user);
        let twice = repo.replace(&other, true, &hashes("b"), noon(), made()).await.unwrap_err();
        assert!(matches!(twice, RepoError::Duplicate(_)), "{twice:?}");
        assert_eq!(repo.counts(other.id).await.unwrap(), counts(0, 0));
        assert_eq!(fixtures::notices(db).await.len(), 1);

        assert!(repo.use_code(set.id, "a-3", noon(), Some(fixtures::notice("r@example.com", "code used"))).await.unwrap());
        assert!(!repo.use_code(set.id, "a-3", noon(), None).await.unwrap(), "a code works once");
        assert!(!repo.use_code(set.id, "nope", noon(), None).await.unwrap());
        assert!(!repo.use_code(other.id, "a-4", noon(), None).await.unwrap(), "another set's code");
        assert_eq!(repo.counts(set.id).await.unwrap(), counts(10, 9));
        assert_eq!(fixtures::notices(db).await.len(), 2);

        // Replacing retires every old code.
        repo.replace(&set, false, &hashes("c"), noon(), None).await.unwrap();
        assert_eq!(repo.counts(set.id).await.unwrap(), counts(10, 10));
        assert!(!repo.use_code(set.id, "a-4", noon(), None).await.unwrap());
        assert!(repo.use_code(set.id, "c-4", noon(), None).await.unwrap());

        // Removing the factor removes its codes; replacing a removed set is not found.
        assert!(factors.delete(user, set.id, noon(), None).await.unwrap());
        assert_eq!(repo.counts(set.id).await.unwrap(), counts(0, 0));
        let gone = repo.replace(&set, false, &hashes("d"), noon(), None).await.unwrap_err();
        assert!(matches!(gone, RepoError::NotFound), "{gone:?}");
    }

    async fn two_uses_of_one_code_racing_spend_it_once(db) {
        let repo = DieselRecoveryCodeRepository::new(db.clone());
        let user = fixtures::account(db, "r@example.com");
        let set = set_of(user);
        repo.replace(&set, true, &hashes("a"), noon(), None).await.unwrap();
        let mut tasks = Vec::new();
        for _ in 0..4 {
            let repo = repo.clone();
            tasks.push(tokio::spawn(async move { repo.use_code(set.id, "a-0", noon(), None).await }));
        }
        let mut spent = 0;
        for task in tasks {
            if task.await.unwrap().unwrap() {
                spent += 1;
            }
        }
        assert_eq!(spent, 1);
        assert_eq!(repo.counts(set.id).await.unwrap(), counts(10, 9));
    }

    async fn the_sessions_list_shows_live_sessions_with_their_clients_and_ends_the_owners_only(db) {
        let list = DieselSessionListRepository::new(db.clone());
        let tokens = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "s@example.com");
        let stranger = fixtures::account(db, "x@example.com");
        let here = RefreshToken::start("h1".into(), user, AuthMethod::Password, noon());
        let there = RefreshToken::start("t1".into(), user, AuthMethod::Otp, noon());
        let theirs = RefreshToken::start("x1".into(), stranger, AuthMethod::Password, noon());
        for token in [&here, &there, &theirs] {
            tokens.insert(token).await.unwrap();
        }
        let later = noon() + Duration::minutes(5);
        let client = SessionClient::seen(Some("Firefox"), Some("203.0.113.9".into()), later);
        list.record_client(here.family_id, user, &client).await.unwrap();
        let moved = SessionClient::seen(Some("Firefox"), Some("198.51.100.1".into()), later);
        list.record_client(here.family_id, user, &moved).await.unwrap();
        // A rotation leaves one live head per session.
        let next = there.successor("t2".into(), later);
        tokens.rotate("t1", &next, later).await.unwrap();

        let mut listed = list.list_live(user).await.unwrap();
        listed.sort_by_key(|s| s.head.token_hash.clone());
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0].head.token_hash, "h1");
        assert_eq!(listed[0].client, Some(moved), "the client as last seen");
        assert_eq!((listed[1].head.token_hash.as_str(), listed[1].client.as_ref()), ("t2", None));

        let told = || Some(fixtures::notice("s@example.com", "signed out"));
        assert!(!list.end_session(user, theirs.family_id, later, told()).await.unwrap(), "not the owner's");
        assert!(tokens.current_of_family(theirs.family_id).await.unwrap().is_some());
        assert!(fixtures::notices(db).await.is_empty());
        assert!(list.end_session(user, there.family_id, later, told()).await.unwrap());
        assert!(tokens.current_of_family(there.family_id).await.unwrap().is_none(), "ended at once");
        assert!(!list.end_session(user, there.family_id, later, told()).await.unwrap(), "already ended");
        assert_eq!(fixtures::notices(db).await, ["Security: signed out"]);
        assert_eq!(list.list_live(user).await.unwrap().len(), 1);
    }

    async fn ending_the_aal1_sessions_spares_the_kept_one_and_the_raised_ones(db) {
        let list = DieselSessionListRepository::new(db.clone());
        let tokens = DieselRefreshTokenRepository::new(db.clone());
        let user = fixtures::account(db, "a@example.com");
        let stranger = fixtures::account(db, "x@example.com");
        let keep = RefreshToken::start("k1".into(), user, AuthMethod::Password, noon());
        let plain = RefreshToken::start("p1".into(), user, AuthMethod::Password, noon());
        let plain_too = RefreshToken::start("q1".into(), user, AuthMethod::MagicLink, noon());
        let theirs = RefreshToken::start("x1".into(), stranger, AuthMethod::Password, noon());
        let raised_start = RefreshToken::start("r1".into(), user, AuthMethod::Password, noon());
        for token in [&keep, &plain, &plain_too, &theirs, &raised_start] {
            tokens.insert(token).await.unwrap();
        }
        let step = SecondStep { method: SecondFactorMethod::RecoveryCode, factor_id: None, at: noon() };
        tokens.rotate("r1", &raised_start.raised("r2".into(), step, noon()), noon()).await.unwrap();

        assert_eq!(list.end_aal1_sessions(user, Some(keep.family_id), noon(), None).await.unwrap(), 2);
        for (token, live) in [(&keep, true), (&plain, false), (&plain_too, false), (&theirs, true), (&raised_start, true)] {
            let head = tokens.current_of_family(token.family_id).await.unwrap();
            assert_eq!(head.is_some(), live, "{}", token.token_hash);
        }
        let raised = tokens.current_of_family(raised_start.family_id).await.unwrap().unwrap();
        assert_eq!(raised.second_step, Some(step), "the method round-trips");
        assert_eq!(list.end_aal1_sessions(user, Some(keep.family_id), noon(), None).await.unwrap(), 0);
    }
}
