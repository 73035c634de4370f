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
        OneTimeCode::issue(purpose, email(address), format!("code-{tag}"), now),
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
