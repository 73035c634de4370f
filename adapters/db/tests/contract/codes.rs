//! Single-use e-mail codes: stored with their e-mail atomically, consumed once, siblings used together.

use crate::fixtures::email;
use adapter_db::Db;
use adapter_db::convert::backend;
use adapter_db::repos::DieselOneTimeCodeRepository;
use adapter_db::schema::email_outbox;
use chrono::{DateTime, Duration, TimeZone, Utc};
use diesel::prelude::*;
use domain::common::RepoError;
use domain::identity::models::{OneTimeCode, OtpPurpose};
use domain::identity::ports::OneTimeCodeRepository;
use domain::mail::{EmailKind, OutgoingEmail};

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

/// The outbox as (kind, recipient, subject, body, link, attempts, next_attempt_at), oldest first.
pub type OutboxRow = (String, String, String, String, Option<String>, i32, i64);

pub async fn outbox(db: &Db) -> Vec<OutboxRow> {
    db.read(|conn| {
        email_outbox::table
            .order((email_outbox::created_at.asc(), email_outbox::subject.asc()))
            .select((
                email_outbox::kind,
                email_outbox::recipient,
                email_outbox::subject,
                email_outbox::body,
                email_outbox::link,
                email_outbox::attempts,
                email_outbox::next_attempt_at,
            ))
            .load(conn)
            .map_err(backend("reading the outbox"))
    })
    .await
    .unwrap()
}

fn mail(to: &str) -> OutgoingEmail {
    OutgoingEmail {
        kind: EmailKind::MagicLink,
        to: email(to),
        subject: "Your sign-in link".into(),
        text: "Code 123456".into(),
        link: Some("https://portal.test/verify?token=t".into()),
    }
}

/// A link token and a typed code of one request.
fn pair(address: &str, purpose: OtpPurpose, tag: &str, now: DateTime<Utc>) -> Vec<OneTimeCode> {
    vec![
        OneTimeCode::issue(purpose, email(address), format!("link-{tag}"), now),
        OneTimeCode::issue_typed(purpose, email(address), format!("code-{tag}"), now),
    ]
}

contract! {
    async fn codes_and_their_email_are_stored_together(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let codes = pair("a@example.com", OtpPurpose::MagicLink, "1", noon());
        repo.insert_with_email(&codes, &mail("a@example.com")).await.unwrap();
        assert_eq!(
            outbox(db).await,
            vec![(
                "magic_link".to_owned(),
                "a@example.com".to_owned(),
                "Your sign-in link".to_owned(),
                "Code 123456".to_owned(),
                Some("https://portal.test/verify?token=t".to_owned()),
                0,
                noon().timestamp_millis(),
            )]
        );
        let used = repo.consume("code-1", OtpPurpose::MagicLink, noon()).await.unwrap().unwrap();
        assert_eq!(used, OneTimeCode { used_at: Some(noon()), ..codes[1].clone() });
    }

    async fn a_failed_insert_stores_neither_the_codes_nor_the_email(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let first = pair("a@example.com", OtpPurpose::Signup, "1", noon());
        repo.insert_with_email(&first, &mail("a@example.com")).await.unwrap();
        let mut clash = pair("b@example.com", OtpPurpose::Signup, "2", noon());
        clash[1].id = first[0].id;
        let result = repo.insert_with_email(&clash, &mail("b@example.com")).await;
        assert!(matches!(result, Err(RepoError::Duplicate("one_time_code"))), "{result:?}");
        assert_eq!(outbox(db).await.len(), 1, "the second e-mail was rolled back");
        assert_eq!(
            repo.consume("link-2", OtpPurpose::Signup, noon()).await.unwrap(),
            None,
            "the first code of the failed request was rolled back"
        );
    }

    async fn a_repeated_digest_is_stored_and_either_copy_works_once(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let later = noon() + Duration::minutes(1);
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::Recovery, "same", noon()), &mail("a@example.com"))
            .await
            .unwrap();
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::Recovery, "same", later), &mail("a@example.com"))
            .await
            .unwrap();
        assert!(repo.consume("code-same", OtpPurpose::Recovery, later).await.unwrap().is_some());
        assert!(repo.consume("code-same", OtpPurpose::Recovery, later).await.unwrap().is_none());
    }

    async fn a_code_works_once_and_uses_up_its_siblings_only(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let later = noon() + Duration::minutes(1);
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::MagicLink, "1", noon()), &mail("a@example.com"))
            .await
            .unwrap();
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::MagicLink, "2", later), &mail("a@example.com"))
            .await
            .unwrap();
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::Recovery, "r", noon()), &mail("a@example.com"))
            .await
            .unwrap();
        repo.insert_with_email(&pair("b@example.com", OtpPurpose::MagicLink, "b", noon()), &mail("b@example.com"))
            .await
            .unwrap();
        let now = noon() + Duration::minutes(2);
        let used = repo.consume("link-2", OtpPurpose::MagicLink, now).await.unwrap().unwrap();
        assert_eq!((used.code_hash.as_str(), used.used_at), ("link-2", Some(now)));
        for sibling in ["link-2", "code-2", "link-1", "code-1"] {
            assert_eq!(repo.consume(sibling, OtpPurpose::MagicLink, now).await.unwrap(), None, "{sibling}");
        }
        assert!(repo.consume("code-r", OtpPurpose::Recovery, now).await.unwrap().is_some(), "another purpose");
        assert!(repo.consume("code-b", OtpPurpose::MagicLink, now).await.unwrap().is_some(), "another e-mail");
    }

    async fn an_expired_code_or_another_purpose_is_not_usable(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let codes = pair("a@example.com", OtpPurpose::Recovery, "1", noon());
        repo.insert_with_email(&codes, &mail("a@example.com")).await.unwrap();
        let expires = codes[0].expires_at;
        assert_eq!(expires, noon() + Duration::minutes(15));
        assert_eq!(repo.consume("link-1", OtpPurpose::Recovery, expires).await.unwrap(), None);
        assert_eq!(repo.consume("link-1", OtpPurpose::MagicLink, noon()).await.unwrap(), None);
        assert_eq!(repo.consume("unknown", OtpPurpose::Recovery, noon()).await.unwrap(), None);
        let just_in_time = expires - Duration::milliseconds(1);
        assert!(repo.consume("link-1", OtpPurpose::Recovery, just_in_time).await.unwrap().is_some());
    }

    async fn of_concurrent_uses_of_one_request_exactly_one_succeeds(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::MagicLink, "1", noon()), &mail("a@example.com"))
            .await
            .unwrap();
        let mut tasks = Vec::new();
        for i in 0..10 {
            let repo = repo.clone();
            let hash = if i % 2 == 0 { "link-1" } else { "code-1" };
            tasks.push(tokio::spawn(async move {
                repo.consume(hash, OtpPurpose::MagicLink, noon() + Duration::minutes(1)).await
            }));
        }
        let mut wins = 0;
        for task in tasks {
            if task.await.unwrap().unwrap().is_some() {
                wins += 1;
            }
        }
        assert_eq!(wins, 1);
    }

    async fn pruning_deletes_codes_expired_before_the_cutoff(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::Signup, "old", noon()), &mail("a@example.com"))
            .await
            .unwrap();
        let fresh = noon() + Duration::hours(1);
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::Signup, "new", fresh), &mail("a@example.com"))
            .await
            .unwrap();
        let cutoff = noon() + Duration::minutes(15);
        assert_eq!(repo.prune_expired(cutoff).await.unwrap(), 0, "expiring exactly at the cutoff stays");
        assert_eq!(repo.prune_expired(cutoff + Duration::milliseconds(1)).await.unwrap(), 2);
        assert!(repo.consume("code-new", OtpPurpose::Signup, fresh).await.unwrap().is_some());
    }
}

/// Whether the code with this digest can still be used (consuming it if so).
async fn usable(
    repo: &DieselOneTimeCodeRepository,
    hash: &str,
    purpose: OtpPurpose,
    now: DateTime<Utc>,
) -> bool {
    repo.consume(hash, purpose, now).await.unwrap().is_some()
}

contract! {
    async fn a_new_request_retires_the_earlier_unused_codes_of_its_address_and_purpose(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let later = noon() + Duration::minutes(1);
        for (address, purpose, tag, at) in [
            ("a@example.com", OtpPurpose::MagicLink, "old", noon()),
            ("a@example.com", OtpPurpose::Recovery, "recovery", noon()),
            ("b@example.com", OtpPurpose::MagicLink, "other", noon()),
            ("a@example.com", OtpPurpose::MagicLink, "new", later),
        ] {
            repo.insert_with_email(&pair(address, purpose, tag, at), &mail(address)).await.unwrap();
        }
        let now = later + Duration::minutes(1);
        assert!(!usable(&repo, "link-old", OtpPurpose::MagicLink, now).await, "retired by the newer request");
        assert!(!usable(&repo, "code-old", OtpPurpose::MagicLink, now).await, "retired by the newer request");
        assert!(usable(&repo, "code-new", OtpPurpose::MagicLink, now).await);
        assert!(usable(&repo, "link-recovery", OtpPurpose::Recovery, now).await, "another purpose stays");
        assert!(usable(&repo, "link-other", OtpPurpose::MagicLink, now).await, "another address stays");
    }

    async fn a_failed_insert_retires_nothing(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let first = pair("a@example.com", OtpPurpose::Signup, "1", noon());
        repo.insert_with_email(&first, &mail("a@example.com")).await.unwrap();
        let mut clash = pair("a@example.com", OtpPurpose::Signup, "2", noon() + Duration::minutes(1));
        clash[1].id = first[0].id;
        assert!(repo.insert_with_email(&clash, &mail("a@example.com")).await.is_err());
        assert!(usable(&repo, "code-1", OtpPurpose::Signup, noon() + Duration::minutes(2)).await);
    }

    async fn a_sign_up_code_keeps_its_pending_password_and_browser_digest(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let mut codes = pair("a@example.com", OtpPurpose::Signup, "1", noon());
        for code in &mut codes {
            code.pending_password_hash = Some("argon".into());
            code.browser_hash = Some("browser-digest".into());
        }
        repo.insert_with_email(&codes, &mail("a@example.com")).await.unwrap();
        let used = repo.consume("link-1", OtpPurpose::Signup, noon()).await.unwrap().unwrap();
        assert_eq!(used, OneTimeCode { used_at: Some(noon()), ..codes[0].clone() });
    }

    async fn the_pending_password_is_the_newest_usable_sign_up_s(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let a = email("a@example.com");
        assert_eq!(repo.pending_password(&a, noon()).await.unwrap(), None);
        for (tag, minute) in [("first", 0), ("second", 1)] {
            let mut codes = pair("a@example.com", OtpPurpose::Signup, tag, noon() + Duration::minutes(minute));
            for code in &mut codes {
                code.pending_password_hash = Some(format!("hash-{tag}"));
            }
            repo.insert_with_email(&codes, &mail("a@example.com")).await.unwrap();
        }
        let now = noon() + Duration::minutes(2);
        assert_eq!(repo.pending_password(&a, now).await.unwrap().as_deref(), Some("hash-second"));
        assert_eq!(repo.pending_password(&email("b@example.com"), now).await.unwrap(), None);
        assert_eq!(repo.pending_password(&a, noon() + Duration::minutes(16)).await.unwrap(), None, "expired");
        assert!(usable(&repo, "code-second", OtpPurpose::Signup, now).await);
        assert_eq!(repo.pending_password(&a, now).await.unwrap(), None, "used");
    }

    async fn five_failed_codes_use_up_the_typed_codes_of_the_purposes_tried_and_no_link(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        for (address, purpose, tag) in [
            ("a@example.com", OtpPurpose::MagicLink, "magic"),
            ("a@example.com", OtpPurpose::Recovery, "recovery"),
            ("b@example.com", OtpPurpose::MagicLink, "other"),
        ] {
            repo.insert_with_email(&pair(address, purpose, tag, noon()), &mail(address)).await.unwrap();
        }
        let a = email("a@example.com");
        let tried = [OtpPurpose::MagicLink, OtpPurpose::Signup];
        for minute in 1..5 {
            assert!(!repo.record_failed_code(&a, &tried, noon() + Duration::minutes(minute)).await.unwrap());
        }
        let fifth = noon() + Duration::minutes(5);
        assert!(repo.record_failed_code(&a, &tried, fifth).await.unwrap(), "the fifth failure uses the codes up");
        assert!(!usable(&repo, "code-magic", OtpPurpose::MagicLink, fifth).await, "the typed code tried went");
        // (Using a code uses up its siblings: one check per address and purpose.)
        assert!(usable(&repo, "link-magic", OtpPurpose::MagicLink, fifth).await, "the link stays");
        assert!(usable(&repo, "code-recovery", OtpPurpose::Recovery, fifth).await, "a purpose not tried stays");
        assert!(usable(&repo, "code-other", OtpPurpose::MagicLink, fifth).await, "another address stays");
        // The count starts again: a new request's code survives four more failures.
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::MagicLink, "next", fifth), &mail("a@example.com"))
            .await
            .unwrap();
        for _ in 0..4 {
            assert!(!repo.record_failed_code(&a, &tried, fifth).await.unwrap());
        }
        assert!(usable(&repo, "code-next", OtpPurpose::MagicLink, fifth).await);
    }

    async fn a_successful_code_clears_the_failures_of_its_address(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let a = email("a@example.com");
        for _ in 0..4 {
            assert!(!repo.record_failed_code(&a, &[OtpPurpose::MagicLink], noon()).await.unwrap());
        }
        repo.insert_with_email(&pair("a@example.com", OtpPurpose::MagicLink, "1", noon()), &mail("a@example.com"))
            .await
            .unwrap();
        assert!(usable(&repo, "code-1", OtpPurpose::MagicLink, noon()).await);
        for _ in 0..4 {
            assert!(!repo.record_failed_code(&a, &[OtpPurpose::MagicLink], noon()).await.unwrap(), "counting from zero again");
        }
        assert!(repo.record_failed_code(&a, &[OtpPurpose::MagicLink], noon()).await.unwrap());
    }

    async fn failures_are_forgotten_fifteen_quiet_minutes_after_the_last(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        let a = email("a@example.com");
        for minute in [0, 10, 20, 30] {
            assert!(!repo.record_failed_code(&a, &[OtpPurpose::MagicLink], noon() + Duration::minutes(minute)).await.unwrap());
        }
        // 15 minutes after the fourth, the count starts again at one.
        let quiet = noon() + Duration::minutes(45);
        for _ in 0..4 {
            assert!(!repo.record_failed_code(&a, &[OtpPurpose::MagicLink], quiet).await.unwrap());
        }
        assert!(repo.record_failed_code(&a, &[OtpPurpose::MagicLink], quiet + Duration::minutes(14)).await.unwrap());
    }

    async fn pruning_also_deletes_failure_counts_older_than_the_cutoff(db) {
        let repo = DieselOneTimeCodeRepository::new(db.clone());
        repo.record_failed_code(&email("old@example.com"), &[OtpPurpose::MagicLink], noon()).await.unwrap();
        repo.record_failed_code(&email("new@example.com"), &[OtpPurpose::MagicLink], noon() + Duration::hours(1)).await.unwrap();
        assert_eq!(repo.prune_expired(noon() + Duration::minutes(30)).await.unwrap(), 1);
        assert_eq!(repo.prune_expired(noon() + Duration::minutes(30)).await.unwrap(), 0);
    }
}

shared_contract! {
    async fn two_instances_share_the_failure_count(first, second) {
        let one = DieselOneTimeCodeRepository::new(first.clone());
        let two = DieselOneTimeCodeRepository::new(second.clone());
        one.insert_with_email(&pair("a@example.com", OtpPurpose::MagicLink, "1", noon()), &mail("a@example.com"))
            .await
            .unwrap();
        let a = email("a@example.com");
        // Ten failures at once, half on each instance: the fifth and the tenth use the codes up.
        let tasks: Vec<_> = (0..10)
            .map(|i| {
                let repo = if i % 2 == 0 { one.clone() } else { two.clone() };
                let a = a.clone();
                tokio::spawn(async move { repo.record_failed_code(&a, &[OtpPurpose::MagicLink], noon()).await.unwrap() })
            })
            .collect();
        let mut killed = 0;
        for task in tasks {
            if task.await.unwrap() {
                killed += 1;
            }
        }
        assert_eq!(killed, 2);
        assert!(!usable(&two, "code-1", OtpPurpose::MagicLink, noon()).await);
    }
}
